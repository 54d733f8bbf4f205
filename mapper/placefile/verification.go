package placefile

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gocarina/gocsv"

	"github.com/latmap/latmap/internal/atomicdir"
)

// Verification directory files (latmap verify -o DIR).
const (
	VerifyMetaFile = "meta.json"
	VerifyRunsFile = "runs.csv"
)

// Verification is a verification directory's meta.json: the A/B of the
// launch command as given ("current") against the same command with the
// placement file ("proposal"). Its parts are embedded so that the JSON
// object is flat.
type Verification struct {
	Tool           string    `json:"tool"`
	Version        string    `json:"version"`
	Start          time.Time `json:"start"`
	End            time.Time `json:"end"`
	RunsPerVariant int       `json:"runs_per_variant"`
	VerifyCommands
	Measured
	PredictedGain
}

// VerifyCommands are the two launch commands compared.
type VerifyCommands struct {
	CurrentCommand  []string `json:"current_command"`
	ProposalCommand []string `json:"proposal_command"`
	// ProposalEnv are the variables set for the proposal runs only
	// (SLURM_HOSTFILE for srun).
	ProposalEnv   []string `json:"proposal_env,omitempty"`
	PlacementFile string   `json:"placement_file"`
	Place         string   `json:"place,omitempty"`
}

// Measured is what the runs measured.
type Measured struct {
	CurrentMedian  float64 `json:"current_median_s"`
	ProposalMedian float64 `json:"proposal_median_s"`
	// Speedup is CurrentMedian / ProposalMedian; SpeedupCI95 its 95%
	// bootstrap interval (2,000 resamples of each variant's runs, seed 1).
	Speedup     float64    `json:"speedup"`
	SpeedupCI95 [2]float64 `json:"speedup_ci95"`
}

// PredictedGain is latmap place's prediction for the same placement (with
// --place): the run it predicted for the current placement (or its
// reference, block or cyclic, when the current one was unknown) over the
// proposal's.
type PredictedGain struct {
	PredictedSpeedup float64 `json:"predicted_speedup,omitempty"`
	PredictedOver    float64 `json:"predicted_over_measured,omitempty"`
	PredictedAgainst string  `json:"predicted_against,omitempty"`
}

// VerifyRun is one row of runs.csv.
type VerifyRun struct {
	Run     int     `csv:"run"`
	Variant string  `csv:"variant"`
	Wall    float64 `csv:"wall_s"`
	Exit    int     `csv:"exit_status"`
}

// WriteVerification writes a verification directory atomically.
func WriteVerification(dir string, force bool, v *Verification, runs []VerifyRun) error {
	return atomicdir.Write(dir, force, func(tmp string) error {
		if err := atomicdir.CreateFile(filepath.Join(tmp, VerifyRunsFile), func(w io.Writer) error { return gocsv.Marshal(runs, w) }); err != nil {
			return err
		}
		return atomicdir.WriteJSON(filepath.Join(tmp, VerifyMetaFile), v)
	})
}

// ReadVerification reads a verification directory.
func ReadVerification(dir string) (*Verification, []VerifyRun, error) {
	b, err := os.ReadFile(filepath.Join(dir, VerifyMetaFile))
	if err != nil {
		return nil, nil, fmt.Errorf("reading verification %s: %w", dir, err)
	}
	v := &Verification{}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, nil, fmt.Errorf("reading verification %s: %s: %w", dir, VerifyMetaFile, err)
	}
	f, err := os.Open(filepath.Join(dir, VerifyRunsFile))
	if err != nil {
		return nil, nil, fmt.Errorf("reading verification %s: %w", dir, err)
	}
	defer f.Close()
	var runs []VerifyRun
	if err := gocsv.Unmarshal(f, &runs); err != nil {
		return nil, nil, fmt.Errorf("reading verification %s: %s: %w", dir, VerifyRunsFile, err)
	}
	return v, runs, nil
}
