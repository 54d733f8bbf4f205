package slurmcluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
)

// Slurm is a running Slurm cluster.
type Slurm struct {
	// Conf is slurm.conf; Env are the variables a client command (srun,
	// sinfo, squeue) needs: SLURM_CONF and the job's MCA settings.
	Conf string
	Env  []string
	// Partition is the partition every node is in.
	Partition string
	c         *vcluster.Cluster
	dir       string
	procs     []*exec.Cmd
}

// Unavailable reports why Slurm cannot run here, or "" when it can be
// tried.
func Unavailable() string {
	if why := vcluster.Unavailable(); why != "" {
		return why
	}
	for _, tool := range []string{"slurmctld", "slurmd", "srun", "sinfo", "munged", "mungekey", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Sprintf("a Slurm cluster needs %s (apt-get install slurm-wlm munge)", tool)
		}
	}
	return ""
}

// Start starts Slurm on c for a test and stops it when the test ends; it
// skips the test, with the reason, when Slurm cannot run here.
func Start(t testing.TB, c *vcluster.Cluster, cpusPerNode int) *Slurm {
	t.Helper()
	if why := Unavailable(); why != "" {
		testutil.Missing(t, testutil.NeedSlurm, "%s", why)
	}
	s, err := New(c, t.TempDir(), cpusPerNode)
	if err != nil {
		t.Fatalf("slurm: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// New starts munged, slurmctld and the slurmds in dir and waits until
// every node is idle.
func New(c *vcluster.Cluster, dir string, cpusPerNode int) (*Slurm, error) {
	s := &Slurm{c: c, dir: dir, Partition: "lm"}
	k := c.Index()
	sweep(k)
	for _, d := range []string{"state", "spool", "tmp", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	key, sock := filepath.Join(dir, "munge.key"), filepath.Join(dir, "munge.sock")
	if out, err := exec.Command("mungekey", "--create", "--keyfile", key).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mungekey: %v: %s", err, out)
	}
	s.start(exec.Command("munged", "--foreground", "--force", "--key-file", key, "--socket", sock,
		"--pid-file", filepath.Join(dir, "munged.pid"), "--log-file", filepath.Join(dir, "log", "munged.log"),
		"--seed-file", filepath.Join(dir, "munged.seed")))
	if err := waitFor(10*time.Second, func() bool { _, err := os.Stat(sock); return err == nil }); err != nil {
		s.Close()
		return nil, fmt.Errorf("munged did not start: %v\n%s", err, s.logs("munged.log"))
	}
	var nodes strings.Builder
	for i, n := range c.Nodes {
		fmt.Fprintf(&nodes, "NodeName=%s NodeAddr=%s CPUs=%d State=UNKNOWN\n", n, c.NodeAddr(i), cpusPerNode)
	}
	port := 17100 + 10*k
	// slurmctld runs only on the host its SlurmctldHost names.
	host, err := os.Hostname()
	if err != nil {
		s.Close()
		return nil, err
	}
	host, _, _ = strings.Cut(host, ".")
	conf := fmt.Sprintf(`ClusterName=lm%d
MailProg=/bin/true
SlurmctldHost=%s(%s)
SlurmctldPort=%d
SlurmdPort=%d
SrunPortRange=%d-%d
AuthType=auth/munge
AuthInfo=socket=%s
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=%s
SlurmdSpoolDir=%s/%%n
SlurmctldPidFile=%s/slurmctld.pid
SlurmdPidFile=%s/slurmd.%%n.pid
SlurmctldLogFile=%s/slurmctld.log
SlurmdLogFile=%s/slurmd.%%n.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=%s
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=pmix
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
InactiveLimit=0
KillWait=5
MinJobAge=5
%sPartitionName=%s Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
`, k, host, c.HostAddr(), port, port+1, port+2, port+9, sock,
		filepath.Join(dir, "state"), filepath.Join(dir, "spool"), dir, dir,
		filepath.Join(dir, "log"), filepath.Join(dir, "log"), filepath.Join(dir, "tmp"), nodes.String(), s.Partition)
	s.Conf = filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(s.Conf, []byte(conf), 0o644); err != nil {
		s.Close()
		return nil, err
	}
	s.Env = []string{"SLURM_CONF=" + s.Conf,
		// Ranks of different virtual nodes share the machine's cores:
		// a busy-polling rank starves the other node's.
		"OMPI_MCA_mpi_yield_when_idle=1",
		"OMPI_MCA_btl_tcp_if_include=" + c.Net, "OMPI_MCA_oob_tcp_if_include=" + c.Net}
	ctl := exec.Command("slurmctld", "-D", "-i", "-f", s.Conf)
	s.start(ctl)
	for _, n := range c.Nodes {
		// nsenter keeps the host's /sys (ip netns exec remounts it, and
		// slurmd needs the cgroup tree); unshare gives the node its own
		// host name and a tmpfs of its own as TmpFS.
		script := fmt.Sprintf("hostname %s && mount -t tmpfs tmpfs %s && exec slurmd -D -f %s -N %s",
			n, filepath.Join(dir, "tmp"), s.Conf, n)
		s.start(exec.Command("nsenter", "--net=/run/netns/"+n, "unshare", "--uts", "--mount", "--propagation", "private", "sh", "-c", script))
	}
	if err := waitFor(60*time.Second, func() bool {
		out, err := s.Command("sinfo", "-h", "-N", "-o", "%N %T").Output()
		if err != nil {
			return false
		}
		lines := strings.Fields(string(out))
		idle := 0
		for i := 1; i < len(lines); i += 2 {
			if lines[i] == "idle" {
				idle++
			}
		}
		return idle == len(c.Nodes)
	}); err != nil {
		out, _ := s.Command("sinfo", "-N").CombinedOutput()
		s.Close()
		return nil, fmt.Errorf("the nodes did not come up: %v\n%s\n%s", err, out, s.logs("slurmctld.log"))
	}
	return s, nil
}

// start runs a daemon in the background, in its own process group.
func (s *Slurm) start(cmd *exec.Cmd) {
	cmd.Env = append(os.Environ(), "SLURM_CONF="+s.Conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err == nil {
		s.procs = append(s.procs, cmd)
		s.record()
	}
}

// stateDir holds, per cluster index, the process groups of the daemons
// running for it, so that those of a killed test run (whose cleanup never
// ran, and whose slurmctld still held the index's ports) are stopped by
// the next cluster of that index.
const stateDir = "/run/latmap-slurm"

func (s *Slurm) record() {
	var b strings.Builder
	for _, p := range s.procs {
		fmt.Fprintln(&b, p.Process.Pid)
	}
	os.MkdirAll(stateDir, 0o755)
	os.WriteFile(filepath.Join(stateDir, strconv.Itoa(s.c.Index())), []byte(b.String()), 0o644)
}

// sweep kills the daemons recorded for cluster index k: the index is
// ours (vcluster claimed it), so whatever ran for it before is left over.
func sweep(k int) {
	path := filepath.Join(stateDir, strconv.Itoa(k))
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
	os.Remove(path)
	time.Sleep(200 * time.Millisecond) // let the kernel free their ports
}

// Command is a client command (srun, sinfo...) with the cluster's
// environment.
func (s *Slurm) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), s.Env...)
	return cmd
}

// Close stops every daemon, slurmds first.
func (s *Slurm) Close() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	s.procs = nil
	os.Remove(filepath.Join(stateDir, strconv.Itoa(s.c.Index())))
}

// logs returns a log file of the cluster, for error messages.
func (s *Slurm) logs(name string) string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log", name))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Logs returns every slurmd's and slurmctld's log tail, for a failing test.
func (s *Slurm) Logs() string {
	var b strings.Builder
	ents, _ := os.ReadDir(filepath.Join(s.dir, "log"))
	for _, e := range ents {
		fmt.Fprintf(&b, "== %s\n%s\n", e.Name(), s.logs(e.Name()))
	}
	return b.String()
}

func waitFor(d time.Duration, ok func() bool) error {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if ok() {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("timed out after %s", d)
}

// Srun is the command line prefix that runs srun with the given options
// on the cluster: append the program and its arguments. It needs the
// cluster's environment (Setenv).
func (s *Slurm) Srun(opts ...string) []string {
	return append([]string{"srun", "--partition", s.Partition}, opts...)
}

// Survey runs bin's survey into out under srun with the given srun
// options and survey flags, failing the test (with the daemons' logs)
// when it fails.
func (s *Slurm) Survey(t testing.TB, bin, out string, srunOpts []string, flags ...string) {
	t.Helper()
	args := append(append(s.Srun(srunOpts...), bin, "survey", "-o", out), flags...)
	if o, err := testutil.Run(t, 3*time.Minute, nil, args...); err != nil {
		t.Fatalf("%s: %v\n%s\n%s", strings.Join(args, " "), err, o, s.Logs())
	}
}

// Setenv puts the cluster's environment (Env) in the test's process, for
// the commands it starts (srun, and latmap profile starting srun), until
// the test ends.
func (s *Slurm) Setenv(t testing.TB) {
	for _, e := range s.Env {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
}

// StartCluster starts a virtual cluster of nodes x slots and Slurm on it
// (slots cpus a node) for a test, with the cluster's environment set in
// the test's process (Setenv); both stop when the test ends.
func StartCluster(t testing.TB, nodes, slots int) (*vcluster.Cluster, *Slurm) {
	t.Helper()
	testutil.RequireMPI(t)
	c := vcluster.Start(t, nodes, slots)
	s := Start(t, c, slots)
	s.Setenv(t)
	return c, s
}
