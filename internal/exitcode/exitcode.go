package exitcode

import "errors"

// The statuses (latmap help exit-codes says them in words).
const (
	// OK: done, and every file promised was written.
	OK = 0
	// Failed: failed while running, after its checks (a file could not
	// be written, the machine ran out of something).
	Failed = 1
	// Usage: a usage or input error, found before anything was started
	// or written.
	Usage = 2
	// NoAdvice: ran, but there is nothing to act on: place's proposal
	// did not gain enough to write -o's file, verify measured no gain.
	NoAdvice = 3
	// JobFailed: the MPI job or application latmap launched failed (its
	// status is in the message).
	JobFailed = 4
)

// Error is an error with the status latmap exits with.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// With is err exiting with code (nil when err is nil).
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Of is the status latmap exits with after err: OK for nil, the status
// err carries, else Usage.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Usage
}

// Help says the statuses in words, for --help and the man pages.
const Help = `Exit status (the same for every command):
  0  done, and every file promised was written
  1  failed while running, after its checks (a file could not be written)
  2  usage or input error, found before anything was started or written
  3  ran, but nothing to act on: place's gain is under its threshold
     (-o FILE not written), verify measured no gain
  4  the MPI job or application latmap launched failed (its status is
     in the message)`
