package interpose

//go:generate go run ./internal/gen -dir .
