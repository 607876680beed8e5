package storetest

import (
	"errors"
	"strings"
	"time"

	"github.com/ainb/hive/store"
)

func isDuplicate(err error) bool { return errors.Is(err, store.ErrDuplicate) }

func hasPrefix(err error, prefix string) bool {
	return err != nil && strings.HasPrefix(err.Error(), prefix)
}

func sleep50() { time.Sleep(50 * time.Millisecond) }
