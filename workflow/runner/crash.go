package runner

import "os"

// CrashEnv names the environment variable that makes the runner die at a
// named point, as kill -9 would (no clean-up): tests of exactly-once use
// it to stop between a step's record and its publish. "before-publish:ID"
// is right after step ID's running record.
const CrashEnv = "HIVE_WORKFLOW_CRASH"

func crashPoint(at string) {
	if os.Getenv(CrashEnv) == at {
		os.Exit(137)
	}
}
