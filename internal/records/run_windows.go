package records

// freshctx runs on Linux and macOS. On Windows its process groups, signals
// and the stat fingerprint its "unchanged" answers rest on (inode, change
// time) are not there to build on, so the build stops here, by name.
var _ = freshctx_runs_on_linux_and_macos_only_see_the_README_platforms
