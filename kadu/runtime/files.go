package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
	"golang.org/x/text/encoding/charmap"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/llm"
	"github.com/kobana/kobana-mcp/platform/safename"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Files in executions (docs/decisions.md "Kadu: files, results and
// webhook rotation"). A run's input_file_ids must be ready files of the
// organization. The execution sees them as references — metadata, never
// base64 in a prompt — and reads their text through two tools Kadu's
// runtime serves itself, which any workflow step or agent may call
// without listing them in allowed_tools (they reach nothing but the
// execution's own files):
//
//   - files_read_text {index | file_id, offset, max_bytes}: up to 64 KB of
//     the text of an input file (CSV, OFX, XML, plain text; a PDF's
//     extracted text), with next_offset to read on.
//   - files_write_output {filename, content_type, content}: writes an
//     output file of the execution (text, at most 1 MB), listed on the
//     execution and downloadable like any file; the same name replaces it.
const (
	ToolReadText    = "files_read_text"
	ToolWriteOutput = "files_write_output"

	maxReadText    = 64 << 10
	maxOutputBytes = 1 << 20
)

// isFileTool reports whether name is one of the runtime's file tools.
func isFileTool(name string) bool { return name == ToolReadText || name == ToolWriteOutput }

var (
	readTextSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"index":{"type":"integer","minimum":0,"description":"Position of the file in the run's input_file_ids (default 0)."},` +
		`"file_id":{"type":"string","description":"The file's id (an input file or an output of this execution), instead of index."},` +
		`"offset":{"type":"integer","minimum":0,"description":"Where to start, in bytes of the text (next_offset of the previous read)."},` +
		`"max_bytes":{"type":"integer","minimum":1,"maximum":65536,"description":"How much text to answer (default and most 65536)."}},"additionalProperties":false}`)
	writeOutputSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"filename":{"type":"string","minLength":1,"maxLength":255,"description":"The output file's name."},` +
		`"content_type":{"type":"string","enum":["text/csv","text/plain","application/xml"],"description":"What it is."},` +
		`"content":{"type":"string","description":"The content, at most 1 MB."}},"required":["filename","content_type","content"],"additionalProperties":false}`)
)

// fileTools are the file tools as offered to a model.
func fileTools() []llm.Tool {
	return []llm.Tool{
		llm.FunctionTool(ToolReadText, "Reads the text of one of the run's input files (CSV, OFX, XML, plain text, a PDF's text), 64 KB at a time; the answer's next_offset reads on.", readTextSchema),
		llm.FunctionTool(ToolWriteOutput, "Writes an output file of this execution (CSV, plain text or XML, at most 1 MB), which the people it is delivered to can download.", writeOutputSchema),
	}
}

// fileToolInfo is what saving a task knows of a file tool (ToolLookup):
// Kadu's, no scopes.
func fileToolInfo(name string) (ToolInfo, bool) {
	if !isFileTool(name) {
		return ToolInfo{}, false
	}
	return ToolInfo{Product: "kadu"}, true
}

// inputFileRefs are the run's input files as the execution sees them.
func (r *run) inputFileRefs(ctx context.Context) ([]records.FileJSON, error) {
	var ids []string
	if err := json.Unmarshal([]byte(r.e.InputFileIDsJSON), &ids); err != nil {
		return nil, err
	}
	out := []records.FileJSON{}
	for _, id := range ids {
		f, err := records.GetFile(ctx, r.s.db, r.e.OrganizationID, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted since the run was queued
		}
		if err != nil {
			return nil, err
		}
		out = append(out, records.ToFileJSON(f))
	}
	return out, nil
}

// filesMessage is the agent's note of its input files, or "" for none.
func (r *run) filesMessage(ctx context.Context) (string, error) {
	refs, err := r.inputFileRefs(ctx)
	if err != nil || len(refs) == 0 {
		return "", err
	}
	b, _ := json.Marshal(refs)
	return "The run's input files (metadata, data; read their text with " + ToolReadText + " by index or file_id):\n" + string(b), nil
}

// callFileTool runs a file tool as one step of the execution.
func (r *run) callFileTool(ctx context.Context, tool string, args json.RawMessage, persist func(tx *store.Tx, ans toolAnswer) error) (toolAnswer, error) {
	st, err := r.s.machine.BeginStep(ctx, r.s.db, r.e, records.StepStart{Kind: records.StepToolCall, Tool: tool, Arguments: argsOrNull(args)})
	if err != nil {
		return toolAnswer{}, err
	}
	var ans toolAnswer
	if tool == ToolReadText {
		ans, err = r.readText(ctx, args)
	} else {
		ans, err = r.writeOutput(ctx, args)
	}
	if err != nil {
		return toolAnswer{}, err
	}
	return ans, r.finishCall(ctx, st, ans, nil, persist)
}

func jsonAnswer(v any) toolAnswer {
	b, _ := json.Marshal(v)
	return toolAnswer{Text: string(b), Value: b}
}

// readText answers a window of a file's text.
func (r *run) readText(ctx context.Context, raw json.RawMessage) (toolAnswer, error) {
	var in struct {
		Index    *int   `json:"index"`
		FileID   string `json:"file_id"`
		Offset   int    `json:"offset"`
		MaxBytes int    `json:"max_bytes"`
	}
	if err := json.Unmarshal(raw, &in); err != nil || in.Offset < 0 || in.MaxBytes < 0 || (in.Index != nil && *in.Index < 0) {
		return errorAnswer("invalid_arguments", "files_read_text takes index or file_id, offset and max_bytes (non-negative integers)"), nil
	}
	if in.MaxBytes == 0 || in.MaxBytes > maxReadText {
		in.MaxBytes = maxReadText
	}
	var ids []string
	_ = json.Unmarshal([]byte(r.e.InputFileIDsJSON), &ids)
	id := in.FileID
	if id == "" {
		i := 0
		if in.Index != nil {
			i = *in.Index
		}
		if i >= len(ids) {
			return errorAnswer("not_found", fmt.Sprintf("the run has %d input files; there is no index %d", len(ids), i)), nil
		}
		id = ids[i]
	}
	f, err := records.GetFile(ctx, r.s.db, r.e.OrganizationID, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !slices.Contains(ids, id) && restkit.Deref(f.ExecutionID) != r.e.ID) {
		return errorAnswer("not_found", "no such file among this execution's input and output files"), nil
	}
	if err != nil {
		return toolAnswer{}, err
	}
	if f.Status != records.FileReady {
		return errorAnswer("file_not_ready", "the file is "+f.Status), nil
	}
	text, err := r.s.fileText(ctx, f)
	if err != nil {
		var re *rest.Error
		if errors.As(err, &re) {
			return errorAnswer(re.Code, re.Message), nil
		}
		return toolAnswer{}, err
	}
	start := min(in.Offset, len(text))
	end := min(start+in.MaxBytes, len(text))
	for end < len(text) && end > start && !utf8.RuneStart(text[end]) {
		end--
	}
	out := map[string]any{"file": records.ToFileJSON(f), "offset": start, "text": text[start:end], "text_bytes": len(text), "next_offset": nil}
	if end < len(text) {
		out["next_offset"] = end
	}
	return jsonAnswer(out), nil
}

// fileText is a file's text: the bytes as UTF-8 (ISO-8859-1 read as
// such) for the text types, the extracted text of a PDF. Both are
// bounded by the file size limit.
func (s *Runtime) fileText(ctx context.Context, f *records.File) (string, error) {
	bucket, maxBytes, err := s.files.Ready()
	if err != nil {
		return "", err
	}
	switch f.ContentType {
	case "text/csv", "text/plain", "application/x-ofx", "application/xml", "text/xml", "application/pdf":
	default:
		return "", fileRefusal(http.StatusUnprocessableEntity, "not_text", "a "+f.ContentType+" file has no text to read")
	}
	rc, err := bucket.Open(ctx, f.StorageKey)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxBytes))
	if err != nil {
		return "", err
	}
	if f.ContentType == "application/pdf" {
		return pdfText(b)
	}
	if !utf8.Valid(b) {
		if d, err := charmap.ISO8859_1.NewDecoder().Bytes(b); err == nil {
			b = d
		}
	}
	return string(b), nil
}

// pdfText is the plain text of a PDF (ledongthuc/pdf).
func pdfText(b []byte) (string, error) {
	rd, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", fileRefusal(http.StatusUnprocessableEntity, "unreadable_pdf", "the PDF's text cannot be read: "+err.Error())
	}
	tr, err := rd.GetPlainText()
	if err != nil {
		return "", fileRefusal(http.StatusUnprocessableEntity, "unreadable_pdf", "the PDF's text cannot be read: "+err.Error())
	}
	var sb strings.Builder
	if _, err := io.Copy(&sb, io.LimitReader(tr, 4*maxOutputBytes)); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// writeOutput stores an output file of the execution.
func (r *run) writeOutput(ctx context.Context, raw json.RawMessage) (toolAnswer, error) {
	var in struct {
		Filename    string `json:"filename"`
		ContentType string `json:"content_type"`
		Content     string `json:"content"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return errorAnswer("invalid_arguments", "files_write_output takes filename, content_type and content (strings)"), nil
	}
	name, nameErr := safename.File(in.Filename)
	ct := records.BaseType(in.ContentType)
	switch {
	case nameErr != nil:
		return errorAnswer("invalid_arguments", "filename: "+nameErr.Error()), nil
	case ct != "text/csv" && ct != "text/plain" && ct != "application/xml":
		return errorAnswer("invalid_arguments", "content_type must be text/csv, text/plain or application/xml"), nil
	case len(in.Content) == 0 || len(in.Content) > maxOutputBytes:
		return errorAnswer("invalid_arguments", fmt.Sprintf("content must hold between 1 and %d bytes", maxOutputBytes)), nil
	}
	f, err := r.s.writeOutputFile(ctx, r.e, name, ct, []byte(in.Content))
	if err != nil {
		return toolAnswer{}, err
	}
	return jsonAnswer(map[string]any{"file": records.ToFileJSON(f)}), nil
}

// writeOutputFile stores content as the execution's output file name
// (replacing one of the same name): bytes first, then the row, so a
// ready row always has its bytes.
func (s *Runtime) writeOutputFile(ctx context.Context, e *records.Execution, name, ct string, content []byte) (*records.File, error) {
	bucket, _, err := s.files.Ready()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(content)
	hexSum := hex.EncodeToString(sum[:])
	now := s.clock()
	var f records.File
	old, err := records.OutputByName(ctx, s.db, e.ID, name)
	fresh := errors.Is(err, store.ErrNotFound)
	if err != nil && !fresh {
		return nil, err
	}
	if !fresh {
		f = *old
	} else {
		id := store.NewID()
		execID := e.ID
		f = records.File{ID: id, OrganizationID: e.OrganizationID, Purpose: "output", Filename: name, StorageKey: records.FileKey(e.OrganizationID, id),
			ExecutionID: &execID, UploadState: "uploaded", Status: records.FileReady, CreatedAt: now}
	}
	if _, err := bucket.Put(ctx, f.StorageKey, bytes.NewReader(content), ct, -1); err != nil {
		return nil, err
	}
	f.ContentType, f.ByteSize, f.SHA256, f.Status, f.ConfirmedAt, f.UpdatedAt, f.DeletedAt = ct, int64(len(content)), &hexSum, records.FileReady, &now, now, nil
	if fresh {
		err = records.InsertFile(ctx, s.db, &f)
	} else {
		err = records.ReplaceOutput(ctx, s.db, &f)
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// fileRefusal is a file tool's refusal, as the API answers it
// (rest.Error); the model reads it as the call's error.
func fileRefusal(status int, code, msg string) *rest.Error {
	return &rest.Error{Status: status, Code: code, Message: msg}
}
