package kadu

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// askUsage is what each model step reports in the ask kill tests: two
// cents a step, far below the scene's ceiling.
var askUsage = [3]int{1000, 20, 0}

// answerIs checks that a model request answers the kadu_ask call call_2_0
// with the person's input exactly once.
func answerIs(req map[string]any, want string) bool {
	n := 0
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] == "tool" && mm["tool_call_id"] == "call_2_0" {
			n++
			if mm["content"] != want {
				return false
			}
		}
	}
	return n == 1
}

// answerInput gives the person's input as kadu_executions_continue does
// (its handler), as the member who ran it.
func (k *budgetKill) answerInput(input map[string]any) {
	k.t.Helper()
	id := &identity.Identity{UserID: k.member.ID, Email: k.member.Email, OrganizationID: k.exec.OrganizationID, Role: identity.RoleMember}
	h := &executionsAPI{k.api}
	if _, err := h.continueExecution(identity.With(k.ctx, id), &continueIn{ID: k.exec.ID, Input: input}); err != nil {
		k.t.Fatal(err)
	}
}

// TestAgentAskSurvivesKill: a worker process runs an agent that asks the
// person, and is killed with SIGKILL while the execution waits; the
// person answers and a worker in this process goes on from the question.
// Then the same with the kill during the resume: the worker process took
// the answer and is killed while the model call reading it is in flight;
// the rescued job makes that call again, the answer in it exactly once.
// Either way: the question asked once, every tool call made once, the
// answer never lost nor given twice.
func TestAgentAskSurvivesKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills a worker process")
	}
	for _, engine := range storetest.Engines {
		for _, during := range []string{"wait", "resume"} {
			t.Run(string(engine)+"/"+during, func(t *testing.T) {
				t.Parallel()
				hung := make(chan struct{})
				release := make(chan struct{})
				t.Cleanup(func() { close(release) })
				replies := []func(w http.ResponseWriter, r *http.Request, req map[string]any){
					callTools(askUsage, "kadu_ask", `{"question":"Qual boleto?"}`),
				}
				if during == "resume" {
					replies = append(replies, func(w http.ResponseWriter, r *http.Request, req map[string]any) {
						close(hung)
						select {
						case <-release:
						case <-r.Context().Done():
						}
					})
				}
				replies = append(replies,
					func(w http.ResponseWriter, r *http.Request, req map[string]any) {
						if !answerIs(req, `{"boleto":"b2"}`) {
							http.Error(w, `{"error":{"message":"the answer is not there exactly once"}}`, http.StatusBadRequest)
							return
						}
						callTools(askUsage, "alpha_record", `{"boleto":"b2"}`)(w, r, req)
					},
					answer(askUsage, "Recorded b2."),
				)
				k := newBudgetKill(t, engine, replies...)
				child := k.worker()
				k.until(records.ExecWaitingInput)
				if during == "wait" {
					child.Kill(t)
					k.answerInput(map[string]any{"boleto": "b2"})
				} else {
					k.answerInput(map[string]any{"boleto": "b2"})
					select {
					case <-hung:
					case <-time.After(60 * time.Second):
						t.Fatal("the worker process never resumed the agent")
					}
					child.Kill(t)
					if x := k.api.mustExec(t, k.exec.ID); x.Status != records.ExecRunning {
						t.Fatalf("after the kill: %s", x.Status)
					}
				}
				k.survivor()
				x := k.until(records.ExecSucceeded)
				if got := k.toolCalls(); !slices.Equal(got, []string{`alpha_record {"boleto":"b2"}`}) {
					t.Errorf("every tool call must have run exactly once: %v", got)
				}
				want := []string{"1 llm  succeeded", "2 message kadu_ask succeeded", "3 message  succeeded", "4 llm  succeeded",
					"5 tool_call alpha_record succeeded", "6 llm  succeeded"}
				n := 3
				if during == "resume" {
					want = slices.Insert(want, 3, "4 llm  unknown")
					for i := 4; i < len(want); i++ {
						want[i] = string(rune('0'+i+1)) + want[i][1:]
					}
					n = 4
				}
				if got := k.steps(); !slices.Equal(got, want) {
					t.Errorf("steps\n%v\nwant\n%v", got, want)
				}
				if got := len(k.model.Requests()); got != n || x.WaitingJSON != nil {
					t.Errorf("%d model calls, want %d; waiting %v", got, n, x.WaitingJSON)
				}
			})
		}
	}
}
