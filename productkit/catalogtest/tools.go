package catalogtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ToolsDir is the folder of the golden directory holding tools/list: one
// file per tool (<name>.json), so a change to the surface shows in review
// as the files of the tools it touched, and ToolsIndex.
const ToolsDir = "tools"

// ToolsIndex is tools/list's result with each tool replaced by its name:
// it pins the order the tools are listed in and the members around them
// (resultType, ttlMs, cacheScope, _meta).
const ToolsIndex = "index.json"

// legacyTools is the one-file snapshot of tools/list the per-tool files
// replaced; -update removes it, and its presence fails the comparison so
// that two snapshots never disagree.
const legacyTools = "tools.json"

// toolFileName is what a tool name may be to name its golden file.
var toolFileName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// member is one member of a JSON object, kept in its order.
type member struct {
	key   string
	value json.RawMessage
}

// splitTools cuts tools/list's result (as List prints it) into the index
// and one indented file per tool, keyed by name, in list order.
func splitTools(result string) (index string, names []string, files map[string]string, err error) {
	members, err := objectMembers([]byte(result))
	if err != nil {
		return "", nil, nil, err
	}
	files = map[string]string{}
	var idx bytes.Buffer
	idx.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			idx.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		idx.Write(k)
		idx.WriteByte(':')
		if m.key != "tools" {
			idx.Write(m.value)
			continue
		}
		var tools []json.RawMessage
		if err := json.Unmarshal(m.value, &tools); err != nil {
			return "", nil, nil, fmt.Errorf("tools/list: tools: %w", err)
		}
		for _, raw := range tools {
			var head struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &head); err != nil {
				return "", nil, nil, fmt.Errorf("tools/list: a tool: %w", err)
			}
			if !toolFileName.MatchString(head.Name) {
				return "", nil, nil, fmt.Errorf("tools/list: tool name %q cannot name a golden file", head.Name)
			}
			if _, dup := files[head.Name]; dup {
				return "", nil, nil, fmt.Errorf("tools/list: tool %s is listed twice", head.Name)
			}
			files[head.Name] = indent(raw)
			names = append(names, head.Name)
		}
		n, _ := json.Marshal(names)
		idx.Write(n)
	}
	idx.WriteByte('}')
	return indent(idx.Bytes()), names, files, nil
}

// objectMembers reads a JSON object's members in their order, each value
// compacted.
func objectMembers(doc []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("tools/list: the result is not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return nil, err
		}
		out = append(out, member{key: tok.(string), value: c.Bytes()})
	}
	return out, nil
}

// indent is how List prints JSON: two spaces, from column 0, and a
// final newline.
func indent(compact []byte) string {
	var b bytes.Buffer
	_ = json.Indent(&b, compact, "", "  ")
	b.WriteByte('\n')
	return b.String()
}

// goldenTools compares tools/list's result with dir/tools/, or rewrites
// that folder (removing the files of tools no longer listed) when update
// is set. got "" means the product lists no tools: no folder.
func goldenTools(t testing.TB, dir, got string, update bool) {
	t.Helper()
	folder := filepath.Join(dir, ToolsDir)
	if got == "" {
		if update {
			_ = os.RemoveAll(folder)
			_ = os.Remove(filepath.Join(dir, legacyTools))
			return
		}
		if _, err := os.Stat(folder); err == nil {
			t.Errorf("tools/list: the product lists no tools, but %s exists (run the test with -update to remove it)", folder)
		}
		return
	}
	index, names, files, err := splitTools(got)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := filepath.Glob(filepath.Join(folder, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if update {
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(filepath.Join(dir, legacyTools))
		for _, p := range onDisk {
			if _, ok := files[toolOf(p)]; !ok && filepath.Base(p) != ToolsIndex {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}
		write := func(name, content string) {
			if err := os.WriteFile(filepath.Join(folder, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(ToolsIndex, index)
		for _, n := range names {
			write(n+".json", files[n])
		}
		return
	}
	if _, err := os.Stat(filepath.Join(dir, legacyTools)); err == nil {
		t.Errorf("tools/list: %s is replaced by %s/ (run the test with -update to remove it)", filepath.Join(dir, legacyTools), folder)
	}
	for _, p := range onDisk {
		if filepath.Base(p) == ToolsIndex {
			continue
		}
		if _, ok := files[toolOf(p)]; !ok {
			t.Errorf("tool %s: no longer listed, but its golden file %s remains (run the test with -update to remove it)", toolOf(p), p)
		}
	}
	for _, n := range names {
		p := filepath.Join(folder, n+".json")
		want, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			t.Errorf("tool %s: added, with no golden file %s (run the test with -update to create it)", n, p)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != files[n] {
			t.Errorf("tool %s: differs from %s (run the test with -update to accept):\n%s", n, p, firstDiff(string(want), files[n]))
		}
	}
	p := filepath.Join(folder, ToolsIndex)
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("tools/list: %v (run the test with -update to create it)", err)
	}
	if string(want) != index {
		t.Errorf("tools/list: the order of the tools or the members around them differ from %s (run the test with -update to accept):%s\n%s", p, orderChange(string(want), names), firstDiff(string(want), index))
	}
}

// toolOf is the tool a golden file is of.
func toolOf(path string) string { return strings.TrimSuffix(filepath.Base(path), ".json") }

// orderChange names the tools the index has and the list lacks, and
// back, when the two differ by more than their order.
func orderChange(index string, names []string) string {
	var doc struct {
		Tools []string `json:"tools"`
	}
	if json.Unmarshal([]byte(index), &doc) != nil {
		return ""
	}
	var s strings.Builder
	for _, n := range doc.Tools {
		if !slices.Contains(names, n) {
			fmt.Fprintf(&s, " %s is no longer listed;", n)
		}
	}
	for _, n := range names {
		if !slices.Contains(doc.Tools, n) {
			fmt.Fprintf(&s, " %s is new;", n)
		}
	}
	return s.String()
}
