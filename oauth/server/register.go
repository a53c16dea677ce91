package server

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"time"
)

// Dynamic Client Registration (RFC 7591), kept for clients that predate
// Client ID Metadata Documents. Registration is open — no initial access
// token — and limited per address. A public client registers with
// token_endpoint_auth_method "none"; any other method gets a secret,
// returned once and stored only as its SHA-256.

// registrationRequest is the client metadata we read (RFC 7591 §2).
// Fields we do not use are accepted and ignored.
type registrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	SoftwareID              string   `json:"software_id,omitempty"`
	SoftwareVersion         string   `json:"software_version,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
	JWKS                    any      `json:"jwks,omitempty"`
	JWKSURI                 string   `json:"jwks_uri,omitempty"`
}

// registrationResponse is RFC 7591 §3.2.1's answer.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	SoftwareID              string   `json:"software_id,omitempty"`
	SoftwareVersion         string   `json:"software_version,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
}

type registrationError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func badMetadata(w http.ResponseWriter, code string, err error) {
	writeJSON(w, http.StatusBadRequest, registrationError{Error: code, Description: err.Error()})
}

// handleRegister is POST /register.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	allowAnyOrigin(w)
	if !s.register.Allow(r.Context(), s.clientIP(r)) {
		w.Header().Set("Retry-After", "60")
		writeJSON(w, http.StatusTooManyRequests, registrationError{Error: "too_many_requests", Description: "Too many registrations from this address; try again later."})
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		badMetadata(w, "invalid_client_metadata", errors.New("send the client metadata as application/json"))
		return
	}
	var req registrationRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	if err := dec.Decode(&req); err != nil {
		badMetadata(w, "invalid_client_metadata", fmt.Errorf("the body is not a client metadata object: %v", err))
		return
	}
	if len(req.RedirectURIs) == 0 || len(req.RedirectURIs) > 20 {
		badMetadata(w, "invalid_redirect_uri", errors.New("redirect_uris must list 1 to 20 URIs"))
		return
	}
	for _, u := range req.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			badMetadata(w, "invalid_redirect_uri", err)
			return
		}
	}
	method := req.TokenEndpointAuthMethod
	if method == "" {
		method = "client_secret_basic" // RFC 7591 §2's default
	}
	if !slices.Contains(supportedAuthMethods, method) {
		badMetadata(w, "invalid_client_metadata", fmt.Errorf("token_endpoint_auth_method %q is not supported (none, client_secret_basic or client_secret_post)", method))
		return
	}
	grants, err := checkGrantTypes(req.GrantTypes)
	if err != nil {
		badMetadata(w, "invalid_client_metadata", err)
		return
	}
	responses, err := checkResponseTypes(req.ResponseTypes)
	if err != nil {
		badMetadata(w, "invalid_client_metadata", err)
		return
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	resp := registrationResponse{
		ClientID: "kc_" + base64.RawURLEncoding.EncodeToString(randomBytes(18)), ClientIDIssuedAt: now.Unix(),
		RedirectURIs: req.RedirectURIs, TokenEndpointAuthMethod: method, GrantTypes: grants, ResponseTypes: responses,
		ClientName: cleanName(req.ClientName), ClientURI: req.ClientURI, LogoURI: req.LogoURI, Scope: req.Scope,
		SoftwareID: req.SoftwareID, SoftwareVersion: req.SoftwareVersion, ApplicationType: req.ApplicationType,
	}
	rec := &ClientRecord{
		ID: resp.ClientID, Name: resp.ClientName, RedirectURIs: resp.RedirectURIs, GrantTypes: grants,
		ResponseTypes: responses, TokenEndpointAuthMethod: method, CreatedAt: now,
	}
	if method != "none" {
		resp.ClientSecret = "kcs_" + base64.RawURLEncoding.EncodeToString(randomBytes(32))
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
		rec.SecretHash, _ = sha256Hasher{}.Hash(r.Context(), []byte(resp.ClientSecret))
	}
	stored := resp
	stored.ClientSecret = ""
	rec.Metadata, _ = json.Marshal(stored)
	if err := s.store.CreateClient(r.Context(), rec); err != nil {
		s.log.Error("oauth: registering a client", "err", err)
		writeJSON(w, http.StatusInternalServerError, registrationError{Error: "server_error"})
		return
	}
	s.log.Info("oauth: client registered", "client_id", rec.ID, "name", rec.Name, "auth_method", method)
	writeJSON(w, http.StatusCreated, resp)
}
