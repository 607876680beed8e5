package pairing

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

// The published NIP-AB v1 test vectors (NIP-AB.md, "Test Vectors"), from
// the one copy the web chat's tests read too.
var (
	vecSecret, vecSourceSK, vecSourcePK, vecTargetSK, vecTargetPK string
	vecSessionID, vecECDH, vecSASInput, vecSAS, vecTranscript     string
)

func init() {
	b, err := os.ReadFile("../spec/fixtures/pairing/nip-ab-v1.json")
	if err != nil {
		panic(err)
	}
	var v map[string]string
	if err := json.Unmarshal(b, &v); err != nil {
		panic(err)
	}
	vecSecret, vecSourceSK, vecSourcePK, vecTargetSK, vecTargetPK = v["secret"], v["source_sk"], v["source_pk"], v["target_sk"], v["target_pk"]
	vecSessionID, vecECDH, vecSASInput, vecSAS, vecTranscript = v["session_id"], v["ecdh"], v["sas_input"], v["sas"], v["transcript_hash"]
	goodPK, goodSecret = vecSourcePK, vecSecret
}

func h32(t *testing.T, s string) [32]byte {
	t.Helper()
	b, ok := parseHex32(s)
	if !ok {
		t.Fatalf("bad hex %q", s)
	}
	return b
}

func TestVectors(t *testing.T) {
	secret, srcSK, tgtSK := h32(t, vecSecret), h32(t, vecSourceSK), h32(t, vecTargetSK)
	srcPK, err := PublicKey(srcSK)
	if err != nil {
		t.Fatal(err)
	}
	tgtPK, err := PublicKey(tgtSK)
	if err != nil {
		t.Fatal(err)
	}
	ecdhST, err := ECDH(srcSK, tgtPK)
	if err != nil {
		t.Fatal(err)
	}
	ecdhTS, err := ECDH(tgtSK, srcPK)
	if err != nil {
		t.Fatal(err)
	}
	sid := SessionID(secret)
	sasIn := SASInput(ecdhST, secret)
	th := TranscriptHash(sid, srcPK, tgtPK, sasIn, secret)
	for _, c := range []struct{ name, got, want string }{
		{"source pubkey", hex.EncodeToString(srcPK[:]), vecSourcePK},
		{"target pubkey", hex.EncodeToString(tgtPK[:]), vecTargetPK},
		{"session_id", hex.EncodeToString(sid[:]), vecSessionID},
		{"ecdh (source side)", hex.EncodeToString(ecdhST[:]), vecECDH},
		{"ecdh (target side)", hex.EncodeToString(ecdhTS[:]), vecECDH},
		{"sas_input", hex.EncodeToString(sasIn[:]), vecSASInput},
		{"sas", SASCode(sasIn), vecSAS},
		{"transcript_hash", hex.EncodeToString(th[:]), vecTranscript},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
}

func TestSASCodePadding(t *testing.T) {
	var in [32]byte // 0 mod 1e6
	if got := SASCode(in); got != "000000" {
		t.Fatalf("SASCode(0) = %q", got)
	}
	in[0], in[1], in[2], in[3] = 0xff, 0xff, 0xff, 0xff // 4294967295 % 1e6 = 967295
	if got := SASCode(in); got != "967295" {
		t.Fatalf("SASCode(max) = %q", got)
	}
}

func TestECDHRejectsOffCurve(t *testing.T) {
	var sk, bad [32]byte
	sk[31] = 1
	bad[0] = 0xff // x >= p is not a field element
	for i := range bad {
		bad[i] = 0xff
	}
	if _, err := ECDH(sk, bad); err == nil {
		t.Fatal("ECDH accepted an x-coordinate off the curve")
	}
	if _, err := ECDH([32]byte{}, bad); err == nil {
		t.Fatal("ECDH accepted a zero secret key")
	}
}
