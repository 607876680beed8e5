package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/webhook"
	"github.com/spf13/cobra"
)

func newWorkflowHookSendCmd() *cobra.Command {
	var secretFile, bodyFile, id, contentType string
	cmd := &cobra.Command{
		Use:   "send URL",
		Short: "Sign a body the Standard Webhooks way and POST it to a workflow's webhook URL, for scripts",
		Long: `Reads the secret (whsec_..., as hive workflow hook printed it) from --secret-file
and the body from --body (- for stdin), signs it (webhook-id, webhook-timestamp
now, webhook-signature v1), POSTs it and prints the hub's answer. Exit 0 for
202 (stored: {"delivery", "run"}) and for 200 (a delivery id stored before:
{"duplicate": true, ...}), 3 for 401 (not accepted), 1 for 413 (over 64 KiB),
2 for 429 and 5xx (retry later). The same --id twice is one delivery.`,
		Args: exactArgs(1, "URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := os.ReadFile(secretFile)
			if err != nil {
				return fmt.Errorf("--secret-file: %w", err)
			}
			secret := strings.TrimSpace(string(raw))
			if err := webhook.CheckSecret(secret); err != nil {
				return usageErrorf("--secret-file %s: %v", secretFile, err)
			}
			body, err := readBodyFile(bodyFile)
			if err != nil {
				return err
			}
			if len(body) > webhook.MaxBody {
				return usageErrorf("--body: %d bytes, and a delivery is at most %d", len(body), webhook.MaxBody)
			}
			if id == "" {
				var b [12]byte
				rand.Read(b[:])
				id = "msg_" + hex.EncodeToString(b[:])
			}
			h, err := webhook.SignStandard(secret, id, time.Now(), body)
			if err != nil {
				return err
			}
			h.Set("Content-Type", contentType)
			return sendHook(cmd, args[0], h, body)
		},
	}
	cmd.Flags().StringVar(&secretFile, "secret-file", "", "file holding the webhook's secret (required)")
	cmd.Flags().StringVar(&bodyFile, "body", "", "file holding the body to send, - for stdin (required; a leading @ is allowed)")
	cmd.Flags().StringVar(&id, "id", "", "the delivery id (webhook-id; default: a new random one)")
	cmd.Flags().StringVar(&contentType, "content-type", "application/json", "the body's Content-Type")
	cmd.MarkFlagRequired("secret-file")
	cmd.MarkFlagRequired("body")
	addTimeoutFlag(cmd, 30*time.Second)
	return cmd
}

func readBodyFile(name string) ([]byte, error) {
	name = strings.TrimPrefix(name, "@")
	if name == "-" {
		return io.ReadAll(io.LimitReader(os.Stdin, webhook.MaxBody+1))
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("--body: %w", err)
	}
	return b, nil
}

// sendHook POSTs a signed delivery and turns the answer into output and
// an exit code.
func sendHook(cmd *cobra.Command, url string, h http.Header, body []byte) error {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return usageErrorf("URL %q: give the http:// or https:// URL hive workflow hook printed", url)
	}
	tc, err := tlspin.ClientConfig(flagOrEnv(cmd, "pin", "HIVE_PIN"))
	if err != nil {
		return exitWith(exitUsage, err)
	}
	hc := &http.Client{Timeout: timeoutOf(cmd), Transport: &http.Transport{TLSClientConfig: tc},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(cmd.Context(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return usageErrorf("URL %q: %v", url, err)
	}
	req.Header = h
	resp, err := hc.Do(req)
	if err != nil {
		return exitWith(exitUnavailable, fmt.Errorf("POST %s: %w", url, err))
	}
	defer resp.Body.Close()
	var ans struct {
		Delivery  string `json:"delivery,omitempty"`
		Run       string `json:"run,omitempty"`
		Duplicate bool   `json:"duplicate,omitempty"`
		Error     string `json:"error,omitempty"`
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	json.Unmarshal(raw, &ans)
	switch resp.StatusCode {
	case http.StatusAccepted, http.StatusOK:
		if ans.Delivery == "" {
			return exitWith(exitUnavailable, fmt.Errorf("POST %s: %s without a delivery id: is this a hive hub's hook URL?", url, resp.Status))
		}
		what := "stored"
		if ans.Duplicate {
			what = "a duplicate: stored before as"
		}
		return outputLine(cmd, ans, "%s delivery %s (run %s)", what, ans.Delivery, ans.Run)
	}
	why := ans.Error
	if why == "" {
		why = strings.TrimSpace(string(raw))
	}
	err = fmt.Errorf("POST %s: %s: %s", url, resp.Status, line(why))
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return exitWith(exitRefused, fmt.Errorf("%w (an unknown hook, a wrong secret, a clock off by more than 5 minutes, or a disabled workflow)", err))
	case resp.StatusCode == http.StatusRequestEntityTooLarge:
		return exitWith(exitUsage, err)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return exitWith(exitUnavailable, err)
	}
	return err
}
