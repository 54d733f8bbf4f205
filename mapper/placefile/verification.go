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

// Measured is what the runs measured: the wall time of each launch, and
// (AppTimed) the application's own run, MPI_Init to MPI_Finalize of the
// slowest rank, which is what latmap place predicts.
type Measured struct {
	CurrentMedian  float64 `json:"current_median_s"`
	ProposalMedian float64 `json:"proposal_median_s"`
	// Speedup is CurrentMedian / ProposalMedian; SpeedupCI95 its 95%
	// bootstrap interval (2,000 resamples of each variant's runs, seed 1).
	Speedup     float64    `json:"speedup"`
	SpeedupCI95 [2]float64 `json:"speedup_ci95"`
	// AppTimed says every run timed the application (the preload library
	// wrote its time); the App figures are then those runs' medians and
	// speedup, and LaunchMedian the median of wall minus application time
	// (the launcher's start and end, the same for both placements).
	AppTimed          bool       `json:"app_timed"`
	CurrentAppMedian  float64    `json:"current_app_median_s,omitempty"`
	ProposalAppMedian float64    `json:"proposal_app_median_s,omitempty"`
	AppSpeedup        float64    `json:"app_speedup,omitempty"`
	AppSpeedupCI95    [2]float64 `json:"app_speedup_ci95,omitempty"`
	LaunchMedian      float64    `json:"launch_median_s,omitempty"`
	// AppNote says why the application was not timed ("" when it was).
	AppNote string `json:"app_note,omitempty"`
}

// PredictedGain is latmap place's prediction for the same placement (with
// --place): the run it predicted for the current placement (or its
// reference, block or cyclic, when the current one was unknown) over the
// proposal's.
//
// PredictedOver is the predicted speedup over the measured one of the like
// figure: the application's run when it was timed (place predicts the
// application, not the launcher), else the wall time (MeasuredOn says
// which).
type PredictedGain struct {
	PredictedSpeedup float64 `json:"predicted_speedup,omitempty"`
	PredictedOver    float64 `json:"predicted_over_measured,omitempty"`
	PredictedAgainst string  `json:"predicted_against,omitempty"`
	MeasuredOn       string  `json:"measured_on,omitempty"` // "app" or "wall"
}

// VerifyRun is one row of runs.csv.
type VerifyRun struct {
	Run     int     `csv:"run"`
	Variant string  `csv:"variant"`
	Wall    float64 `csv:"wall_s"`
	// App is the application's run (MPI_Init to MPI_Finalize, slowest
	// rank); 0 when it was not timed.
	App  float64 `csv:"app_s"`
	Exit int     `csv:"exit_status"`
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
