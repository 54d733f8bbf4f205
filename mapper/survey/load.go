package survey

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Load reads a survey from path, which is either a survey directory (or a
// file inside one, such as its meta.json) or an mmpi log file.
func Load(path string, opt LoadOptions) (*Survey, error) {
	return LoadWith(path, opt, MMPIOptions{})
}

// LoadWith is Load with options for mmpi logs.
func LoadWith(path string, opt LoadOptions, mm MMPIOptions) (*Survey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading survey: %w (want a survey directory written by latmap survey or latmap import, or an mmpi log)", err)
	}
	if fi.IsDir() {
		return ReadSurvey(path, opt)
	}
	switch filepath.Base(path) {
	case MetaFile, RanksFile, PairsFile, FitFile:
		return ReadSurvey(filepath.Dir(path), opt)
	}
	ok, err := IsMMPILog(path)
	if err != nil {
		return nil, fmt.Errorf("reading survey: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("reading survey: %s is neither a survey directory nor an mmpi log "+
			"(want a directory written by latmap survey or latmap import, or a file starting with \"# Testing Hostname:\" or \"# Processors:\")", path)
	}
	return ReadMMPIFile(path, mm)
}

// IsMMPILog reports whether the file at path starts like an mmpi log: its
// first non-empty line is one of mmpi's "# Testing Hostname:" or
// "# Processors:" comments.
func IsMMPILog(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		return mmpiHostRe.Match(b) || mmpiProcsRe.Match(b), nil
	}
	return false, sc.Err()
}

// AutoMetric guesses, without reading the whole survey at path, the
// metric an automatic choice would pick (see ChooseMetric): the median when
// the first row of a survey directory's pairs.csv has one, else the mean
// (always for mmpi logs). Loading only that metric keeps a 4096-rank
// survey to one float per pair.
func AutoMetric(path string) Metric {
	fi, err := os.Stat(path)
	if err != nil {
		return Mean
	}
	dir := path
	if !fi.IsDir() {
		switch filepath.Base(path) {
		case MetaFile, RanksFile, PairsFile, FitFile:
			dir = filepath.Dir(path)
		default:
			return Mean
		}
	}
	f, err := os.Open(filepath.Join(dir, PairsFile))
	if err != nil {
		return Mean
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || !sc.Scan() {
		return Mean
	}
	fields := bytes.Split(sc.Bytes(), []byte{','})
	if len(fields) > 7 && len(bytes.TrimSpace(fields[7])) > 0 {
		return Median
	}
	return Mean
}
