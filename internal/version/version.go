package version

// Version is latmap's version.
var Version = "0.1.0-dev"
