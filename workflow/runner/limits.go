package runner

import "fmt"

// queueFull says why a new run of the workflow at addr (concurrency queue
// or parallel) cannot wait for its turn: MaxQueued runs wait already
// behind the ones running. "" when it may. r.mu held.
func (r *Runner) queueFull(df *def, id string) string {
	slots := 1
	if df.d.Concurrency == "parallel" {
		slots = MaxParallel
	}
	open := 0
	for _, o := range r.runs {
		if o.address == df.address && o.final == "" && o.id != id {
			open++
		}
	}
	if open-slots < MaxQueued {
		return ""
	}
	return fmt.Sprintf("the queue is full: %d runs wait already (concurrency: %s holds at most %d waiting)", MaxQueued, df.d.Concurrency, MaxQueued)
}
