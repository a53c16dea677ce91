package childproc

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

const env = "KOBANA_CHILDPROC_TEST"

func TestMain(m *testing.M) {
	Serve(env, func(raw []byte) int {
		var cfg struct{ Word string }
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return 2
		}
		fmt.Println("child says", cfg.Word)
		for {
			time.Sleep(time.Hour) // until killed
		}
	})
	os.Exit(m.Run())
}

// The child receives its configuration, runs until killed, and its
// output reaches the parent.
func TestStartAndKill(t *testing.T) {
	t.Parallel()
	c := Start(t, env, map[string]string{"Word": "olá"})
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(c.Output(), "child says olá") {
		if time.Now().After(deadline) {
			t.Fatalf("child output: %q", c.Output())
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Kill(t)
	if st := c.cmd.ProcessState; st == nil || st.Exited() || st.String() != "signal: killed" {
		t.Fatalf("after Kill: %v", st)
	}
}
