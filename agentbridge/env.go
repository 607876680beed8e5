package agentbridge

import (
	"fmt"
	"slices"
	"strings"
)

// inheritedEnv names the variables an agent process inherits from the
// bridge's environment: what a shell, a Node or Python runtime and their
// TLS and proxy settings need to run and reach a model API. Everything
// else, hive's own variables (HIVE_PASSPHRASE decrypts the agent's key file)
// and any API key included, reaches the agent only through its config's env.
var inheritedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "TMPDIR", "TZ",
	"LANG", "LANGUAGE", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
}

// inheritedPrefix is the one family inherited by prefix: the locale.
const inheritedPrefix = "LC_"

// forbiddenEnv are names a config's env may not set: they would hand the
// agent what protects its own key.
var forbiddenEnv = []string{"HIVE_PASSPHRASE", "HIVE_TRANSFER_PASSPHRASE"}

// AgentEnv is the environment of an agent process: the allowed variables of
// parent (os.Environ's form), then the config's env, which wins. The result
// is sorted by name, one entry per name.
func AgentEnv(parent []string, env map[string]string) []string {
	vars := map[string]string{}
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (slices.Contains(inheritedEnv, k) || strings.HasPrefix(k, inheritedPrefix)) {
			vars[k] = v
		}
	}
	for k, v := range env {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// checkEnv refuses a config env that would give the agent hive's secrets.
func checkEnv(env map[string]string) error {
	for k := range env {
		if slices.Contains(forbiddenEnv, k) {
			return fmt.Errorf("env sets %s: the agent must never get the passphrase of hive's key files; remove it", k)
		}
	}
	return nil
}
