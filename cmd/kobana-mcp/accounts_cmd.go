package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The operator's commands over the database: migrate the schema, create
// and list organizations, add workspaces to them, create users, change their password or role,
// and take them out of an organization.
// Each opens the database the way serve does (--data-dir, --database-url,
// or their environment variables) and migrates it first.

const orgsUsage = `Usage:
  kobana-mcp orgs create --name NAME   create an organization (and its default workspace); prints its id
  kobana-mcp orgs list                 list the organizations
  kobana-mcp orgs add-workspace --org ORG --label LABEL [--external-id ID] [--email-prefix PREFIX]
      add a workspace to ORG (its id or exact name); prints the workspace's id

Every command takes --data-dir and --database-url; "kobana-mcp orgs create --help" lists the flags.
`

const usersUsage = `Usage:
  kobana-mcp users create --org ORG --email EMAIL [--role ROLE] [--name NAME] [--password PASSWORD]
      create a user who is a member of ORG (its id or exact name); prints the user's id, and the
      password when it generated one (no --password)
  kobana-mcp users set-password --email EMAIL [--password PASSWORD]
      replace a user's password (generated and printed when --password is not given)
  kobana-mcp users set-role --email EMAIL --org ORG --role ROLE
      give a user a role in an organization (adds the membership when missing)
  kobana-mcp users remove --email EMAIL --org ORG
      take a user out of an organization: their tokens for it are refused from the next request
      on, on every replica; the organization's last owner cannot be removed

Roles: viewer, member, admin, owner. Every command takes --data-dir and --database-url.
`

// parseCmd parses a command's settings; it returns the exit code to stop
// with, or -1 to go on.
func parseCmd(s settings, name string, args []string, stderr io.Writer) int {
	if err := s.Parse(name, args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	return -1
}

// required reports a missing flag the way flag does for a bad one.
func required(stderr io.Writer, name string, vals map[string]*string) int {
	for flagName, v := range vals {
		if strings.TrimSpace(*v) == "" {
			fmt.Fprintf(stderr, "kobana-mcp %s: --%s is required\n", name, flagName)
			return 2
		}
	}
	return -1
}

func fail(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "kobana-mcp %s: %v\n", name, err)
	return 1
}

func migrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var s settings
	db := addDBFlags(&s)
	if code := parseCmd(s, "migrate", args, stderr); code >= 0 {
		return code
	}
	conn, applied, err := openMigrated(ctx, *db.dataDir, *db.url)
	if err != nil {
		return fail(stderr, "migrate", err)
	}
	defer conn.Close()
	for _, m := range applied {
		fmt.Fprintf(stdout, "applied %s (%s)\n", m.Name, m.Duration.Round(time.Millisecond))
	}
	cur, latest, err := conn.SchemaVersion(ctx, productMigrations()...)
	if err != nil {
		return fail(stderr, "migrate", err)
	}
	fmt.Fprintf(stdout, "%s: schema version %d (this binary knows up to %d)\n", conn, cur, latest)
	// The job queue's own tables (River's migrations), so a deploy can
	// migrate everything before any replica starts.
	versions, err := riverschema.Migrate(ctx, conn, slog.New(slog.DiscardHandler))
	if err != nil {
		return fail(stderr, "migrate", err)
	}
	if len(versions) > 0 {
		fmt.Fprintf(stdout, "applied job queue schema versions %v\n", versions)
	}
	return 0
}

func orgsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, orgsUsage)
		return 2
	}
	var s settings
	db := addDBFlags(&s)
	switch args[0] {
	case "create":
		name := s.Add("name", "", "", "the organization's name")
		if code := parseCmd(s, "orgs create", args[1:], stderr); code >= 0 {
			return code
		}
		if code := required(stderr, "orgs create", map[string]*string{"name": name}); code >= 0 {
			return code
		}
		return withAccounts(ctx, db, stderr, "orgs create", func(a *accounts.Store) error {
			org, err := a.CreateOrganization(ctx, *name)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, org.ID)
			return nil
		})
	case "list":
		if code := parseCmd(s, "orgs list", args[1:], stderr); code >= 0 {
			return code
		}
		return withAccounts(ctx, db, stderr, "orgs list", func(a *accounts.Store) error {
			orgs, err := a.ListOrganizations(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tCREATED")
			for _, o := range orgs {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", o.ID, o.Name, o.CreatedAt.Format(time.RFC3339))
			}
			return tw.Flush()
		})
	case "add-workspace":
		org := s.Add("org", "", "", "the organization: its id or exact name")
		label := s.Add("label", "", "", "the workspace's display name")
		external := s.Add("external-id", "", "", "your own id for it (default: its id)")
		prefix := s.Add("email-prefix", "", "", "kebab-case e-mail prefix (default: from the label)")
		if code := parseCmd(s, "orgs add-workspace", args[1:], stderr); code >= 0 {
			return code
		}
		if code := required(stderr, "orgs add-workspace", map[string]*string{"org": org, "label": label}); code >= 0 {
			return code
		}
		return withAccounts(ctx, db, stderr, "orgs add-workspace", func(a *accounts.Store) error {
			o, err := findOrganization(ctx, a, *org)
			if err != nil {
				return err
			}
			w, err := a.CreateWorkspace(ctx, o.ID, accounts.NewWorkspace{Label: *label, ExternalID: *external, EmailPrefix: *prefix})
			if errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("%s already has a workspace with external id %q", o.Name, *external)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, w.ID)
			return nil
		})
	case "help", "--help", "-h":
		fmt.Fprint(stdout, orgsUsage)
		return 0
	}
	fmt.Fprintf(stderr, "kobana-mcp orgs: unknown command %q\n\n%s", args[0], orgsUsage)
	return 2
}

func usersCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usersUsage)
		return 2
	}
	var s settings
	db := addDBFlags(&s)
	email := s.Add("email", "", "", "the user's e-mail address (the sign-in name)")
	switch args[0] {
	case "create":
		org := s.Add("org", "", "", "the organization the user joins: its id or exact name")
		role := s.Add("role", "", string(identity.RoleMember), "the user's role in it: viewer, member, admin or owner")
		name := s.Add("name", "", "", "the user's name (default: the part of the email before @)")
		password := s.Add("password", "", "", "the password (default: generate one and print it)")
		if code := parseCmd(s, "users create", args[1:], stderr); code >= 0 {
			return code
		}
		if code := required(stderr, "users create", map[string]*string{"email": email, "org": org}); code >= 0 {
			return code
		}
		return withAccounts(ctx, db, stderr, "users create", func(a *accounts.Store) error {
			o, err := findOrganization(ctx, a, *org)
			if err != nil {
				return err
			}
			pw, generated := *password, false
			if pw == "" {
				pw, generated = accounts.GeneratePassword(), true
			}
			u, err := a.CreateUser(ctx, accounts.NewUser{Email: *email, Name: *name, Password: pw, OrganizationID: o.ID, Role: identity.Role(*role)})
			if errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("a user with email %s already exists (give them a role with: kobana-mcp users set-role)", accounts.NormalizeEmail(*email))
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, u.ID)
			if generated {
				fmt.Fprintf(stdout, "password: %s\n", pw)
			}
			return nil
		})
	case "set-password":
		password := s.Add("password", "", "", "the new password (default: generate one and print it)")
		if code := parseCmd(s, "users set-password", args[1:], stderr); code >= 0 {
			return code
		}
		if code := required(stderr, "users set-password", map[string]*string{"email": email}); code >= 0 {
			return code
		}
		return withAccounts(ctx, db, stderr, "users set-password", func(a *accounts.Store) error {
			u, err := findUser(ctx, a, *email)
			if err != nil {
				return err
			}
			pw := *password
			if pw == "" {
				pw = accounts.GeneratePassword()
			}
			if err := a.SetPassword(ctx, u.ID, pw); err != nil {
				return err
			}
			if *password == "" {
				fmt.Fprintf(stdout, "password: %s\n", pw)
			}
			return nil
		})
	case "set-role":
		org := s.Add("org", "", "", "the organization: its id or exact name")
		role := s.Add("role", "", "", "the role: viewer, member, admin or owner")
		if code := parseCmd(s, "users set-role", args[1:], stderr); code >= 0 {
			return code
		}
		if code := required(stderr, "users set-role", map[string]*string{"email": email, "org": org, "role": role}); code >= 0 {
			return code
		}
		return withAccounts(ctx, db, stderr, "users set-role", func(a *accounts.Store) error {
			u, err := findUser(ctx, a, *email)
			if err != nil {
				return err
			}
			o, err := findOrganization(ctx, a, *org)
			if err != nil {
				return err
			}
			if err := a.SetRole(ctx, o.ID, u.ID, identity.Role(*role)); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s is %s in %s\n", u.Email, *role, o.Name)
			return nil
		})
	case "remove":
		org := s.Add("org", "", "", "the organization: its id or exact name")
		if code := parseCmd(s, "users remove", args[1:], stderr); code >= 0 {
			return code
		}
		if code := required(stderr, "users remove", map[string]*string{"email": email, "org": org}); code >= 0 {
			return code
		}
		return withAccounts(ctx, db, stderr, "users remove", func(a *accounts.Store) error {
			u, err := findUser(ctx, a, *email)
			if err != nil {
				return err
			}
			o, err := findOrganization(ctx, a, *org)
			if err != nil {
				return err
			}
			err = a.RemoveMember(ctx, o.ID, u.ID)
			switch {
			case errors.Is(err, store.ErrNotFound):
				return fmt.Errorf("%s is not a member of %s", u.Email, o.Name)
			case errors.Is(err, accounts.ErrLastOwner):
				return fmt.Errorf("%s is the last owner of %s: make another member owner first (kobana-mcp users set-role)", u.Email, o.Name)
			case err != nil:
				return err
			}
			fmt.Fprintf(stdout, "%s is no longer a member of %s\n", u.Email, o.Name)
			return nil
		})
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usersUsage)
		return 0
	}
	fmt.Fprintf(stderr, "kobana-mcp users: unknown command %q\n\n%s", args[0], usersUsage)
	return 2
}

// withAccounts opens and migrates the database, runs fn on the identity
// data, and turns an error into the exit code 1 and a message.
func withAccounts(ctx context.Context, db dbFlags, stderr io.Writer, name string, fn func(*accounts.Store) error) int {
	conn, _, err := openMigrated(ctx, *db.dataDir, *db.url)
	if err != nil {
		return fail(stderr, name, err)
	}
	defer conn.Close()
	if err := fn(accounts.New(conn, accounts.Options{})); err != nil {
		return fail(stderr, name, err)
	}
	return 0
}

// findOrganization resolves --org: an id, or else the exact name of one
// organization.
func findOrganization(ctx context.Context, a *accounts.Store, ref string) (accounts.Organization, error) {
	ref = strings.TrimSpace(ref)
	o, err := a.GetOrganization(ctx, ref)
	if !errors.Is(err, store.ErrNotFound) {
		return o, err
	}
	orgs, err := a.ListOrganizations(ctx)
	if err != nil {
		return o, err
	}
	var match []accounts.Organization
	for _, o := range orgs {
		if o.Name == ref {
			match = append(match, o)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return o, fmt.Errorf("no organization has the id or name %q (see: kobana-mcp orgs list)", ref)
	}
	ids := make([]string, len(match))
	for i, m := range match {
		ids[i] = m.ID
	}
	return o, fmt.Errorf("%d organizations are named %q; give the id: %s", len(match), ref, strings.Join(ids, ", "))
}

func findUser(ctx context.Context, a *accounts.Store, email string) (accounts.User, error) {
	u, err := a.GetUserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		return u, fmt.Errorf("no user has the email %s", accounts.NormalizeEmail(email))
	}
	return u, err
}
