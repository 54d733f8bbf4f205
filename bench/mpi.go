//go:build mpi

package bench

/*
#include <stdlib.h>
#include <string.h>
#include "pingpong.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"time"
	"unsafe"

	"github.com/latmap/latmap/internal/sysfs"
	"github.com/latmap/latmap/mapper/survey"
)

// Built reports whether this binary can run surveys (it was built with MPI).
const Built = true

// A waiting rank tests the nonblocking barrier after sleeps that start at
// waitSleepMin and double up to waitSleepMax: ranks that finish a round
// together see the barrier end within tens of microseconds, while ranks idle
// during a long round (all but two in a sequential survey) soon wake only
// once a millisecond and leave the processor to the pair that measures. On
// the 2-core test machine a 20 us cap made same-node round trips of a
// 4-rank sequential survey 3-4 times slower than this one.
// waitSpin is how long a rank that measured in the round tests the barrier
// in a loop before it sleeps: its peers finish at about the same time, and
// a rank that does not sleep between two passes measures the next one at
// the speed of a bare C ping-pong (with sleeps only, same-node round trips
// came out about 10% slower on the test machine).
const waitSpin = 50 * time.Microsecond

const (
	waitSleepMin = 20 * time.Microsecond
	waitSleepMax = time.Millisecond
)

// mpiComm is comm over MPI_COMM_WORLD (a duplicate of it). Every method must
// be called from the goroutine that called runMPI, which is locked to the
// thread that initialised MPI.
type mpiComm struct {
	rank, size int
	buf        unsafe.Pointer
	bufLen     int
	rbuf       unsafe.Pointer // Exchange's receive buffer
	rbufLen    int
	// exitAfter makes this rank exit without MPI_Finalize after that many
	// waits, to test that a rank dying mid-survey ends the whole job with no
	// output: set LATMAP_TEST_EXIT_RANK and LATMAP_TEST_EXIT_AFTER. Tests only.
	exitAfter, waits int
}

func (c *mpiComm) Rank() int { return c.rank }
func (c *mpiComm) Size() int { return c.size }

// grow makes *buf (of *n bytes) hold at least size bytes.
func grow(buf *unsafe.Pointer, n *int, size int) error {
	if size <= *n && *buf != nil {
		return nil
	}
	C.free(*buf)
	*buf = C.calloc(C.size_t(max(size, 1)), 1)
	if *buf == nil {
		*n = 0
		return fmt.Errorf("allocating a %d-byte message buffer failed", size)
	}
	*n = size
	return nil
}

func (c *mpiComm) PingPong(peer int, lo bool, size, warm int, out []float64) error {
	if err := grow(&c.buf, &c.bufLen, size); err != nil {
		return err
	}
	l := C.int(0)
	if lo {
		l = 1
	}
	var p *C.double
	if len(out) > 0 {
		p = (*C.double)(unsafe.Pointer(&out[0]))
	}
	C.lm_pingpong(C.int(peer), l, c.buf, C.int(size), C.int(warm), C.int(len(out)), p)
	return nil
}

func (c *mpiComm) Wait(active bool) error {
	c.waits++
	if c.exitAfter > 0 && c.waits == c.exitAfter {
		fmt.Fprintf(os.Stderr, "latmap: test: rank %d exits on purpose after %d rounds\n", c.rank, c.waits)
		os.Exit(7)
	}
	spin := time.Duration(0)
	if active {
		spin = waitSpin
	}
	C.lm_wait(C.long(spin.Nanoseconds()), C.long(waitSleepMin.Nanoseconds()), C.long(waitSleepMax.Nanoseconds()))
	return nil
}

// idleNap is how long a rank that sits out a pair of the sequential
// schedule's isolation sample sleeps between looks at the barrier: a
// 64 B burst of 10 round trips takes tens of microseconds, so the pair
// measures with the other ranks asleep, at the cost of up to idleNap a
// pair.
const idleNap = 5 * time.Millisecond

func (c *mpiComm) Idle() error {
	C.lm_wait(0, C.long(idleNap.Nanoseconds()), C.long(idleNap.Nanoseconds()))
	return nil
}

func (c *mpiComm) Exchange(dst, src []int, size, count int) (float64, error) {
	if err := grow(&c.buf, &c.bufLen, size); err != nil {
		return 0, err
	}
	window := min(count, nodeBWWindow)
	if err := grow(&c.rbuf, &c.rbufLen, size*window*max(len(src), 1)); err != nil {
		return 0, err
	}
	d, s := cInts(dst), cInts(src)
	secs := float64(C.lm_exchange(&d[0], C.int(len(dst)), &s[0], C.int(len(src)), c.buf, c.rbuf, C.int(size), C.int(count), C.int(window)))
	if secs < 0 {
		return 0, fmt.Errorf("allocating the requests of %d partners failed", len(dst)+len(src))
	}
	return secs, nil
}

// cInts is ranks v as C ints, and one more so that the first's address
// is one when v is empty.
func cInts(v []int) []C.int {
	out := make([]C.int, len(v)+1)
	for i, x := range v {
		out[i] = C.int(x)
	}
	return out
}

func (c *mpiComm) Signal(peer int) error {
	C.lm_signal(C.int(peer))
	return nil
}

func (c *mpiComm) Await(peer int) error {
	C.lm_await(C.int(peer), 0, C.long(waitSleepMin.Nanoseconds()), C.long(waitSleepMax.Nanoseconds()))
	return nil
}

func (c *mpiComm) Gather(b []byte) ([][]byte, error) {
	if len(b) > math.MaxInt32 {
		return nil, fmt.Errorf("rank %d has %d bytes to send, more than MPI_Gatherv can", c.rank, len(b))
	}
	var lens []C.int
	var lensPtr *C.int
	if c.rank == 0 {
		lens = make([]C.int, c.size)
		lensPtr = &lens[0]
	}
	C.lm_gather_sizes(C.int(len(b)), lensPtr)
	sbuf := C.CBytes(b)
	defer C.free(sbuf)
	if c.rank != 0 {
		C.lm_gatherv(sbuf, C.int(len(b)), nil, nil, nil)
		return nil, nil
	}
	displs := make([]C.int, c.size)
	total := 0
	for i, l := range lens {
		displs[i] = C.int(total)
		total += int(l)
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("rank 0 would receive %d bytes, more than MPI_Gatherv can", total)
	}
	rbuf := C.malloc(C.size_t(max(total, 1)))
	defer C.free(rbuf)
	C.lm_gatherv(sbuf, C.int(len(b)), rbuf, &lens[0], &displs[0])
	all := C.GoBytes(rbuf, C.int(total))
	out := make([][]byte, c.size)
	for i, l := range lens {
		out[i] = all[displs[i] : int(displs[i])+int(l)]
	}
	return out, nil
}

func (c *mpiComm) Bcast(b []byte) ([]byte, error) {
	n := C.int(len(b))
	C.lm_bcast_len(&n)
	if n == 0 {
		return nil, nil
	}
	p := C.malloc(C.size_t(n))
	defer C.free(p)
	if c.rank == 0 {
		C.memcpy(p, unsafe.Pointer(&b[0]), C.size_t(n))
	}
	C.lm_bcast(p, n)
	return C.GoBytes(p, n), nil
}

func (c *mpiComm) Abort(code int) { C.lm_abort(C.int(code)) }

func mpiFacts(sys sysfs.FS) survey.Rank {
	r := survey.Rank{CPU: int(C.lm_cpu()), Socket: -1, NUMA: -1, L3: -1, Core: -1}
	r.Host, _ = os.Hostname()
	var mask [128]C.uchar
	if n := int(C.lm_affinity(&mask[0], C.int(len(mask)))); n > 0 {
		var cpus []int
		for i := 0; i < n*8; i++ {
			if mask[i/8]&(1<<(i%8)) != 0 {
				cpus = append(cpus, i)
			}
		}
		r.CPUSet = sysfs.FormatCPUList(cpus)
	}
	if pl, err := sys.CPUPlace(r.CPU); err == nil {
		r.Socket, r.NUMA, r.L3, r.Core = pl.Socket, pl.NUMA, pl.L3, pl.Core
	}
	return r
}

// runMPI initialises MPI on this goroutine's locked thread, runs the survey
// and finalises MPI.
func runMPI(ctx context.Context, opt Options, launcher string) error {
	// MPI is called only from this thread: the one that initialised it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if C.lm_init() != 0 {
		return fmt.Errorf("MPI_Init failed")
	}
	c := &mpiComm{rank: int(C.lm_rank()), size: int(C.lm_size())}
	if r, err := strconv.Atoi(os.Getenv("LATMAP_TEST_EXIT_RANK")); err == nil && r == c.rank {
		c.exitAfter, _ = strconv.Atoi(os.Getenv("LATMAP_TEST_EXIT_AFTER"))
	}
	var v [4096]C.char
	C.lm_library_version(&v[0], C.int(len(v)))
	sys := sysfs.New("")
	env := rankEnv{
		MPIVersion: MPIVersionLine(C.GoString(&v[0])),
		Launcher:   launcher,
		Wtick:      float64(C.lm_wtick()),
		Facts:      func() survey.Rank { return mpiFacts(sys) },
		CPU:        func() int { return int(C.lm_cpu()) },
		Stderr:     opt.Stderr,
	}
	stop, done := watchSignals()
	env.Stop = stop
	err := measure(ctx, c, opt, env)
	done()
	C.free(c.buf)
	C.free(c.rbuf)
	C.lm_finalize()
	if errors.Is(err, errReported) {
		return nil
	}
	return err
}
