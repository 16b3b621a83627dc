package compress

import "github.com/freshctx/freshctx/internal/rx"

// chatter is what package managers print while they fetch, unpack and
// build: it says nothing once they are done. Their warnings, errors and
// their closing summary ("added 15 packages", "Successfully installed …",
// "Done in 1.2s") are not chatter. Tried on the line without its indent.
var chatter = rx.MustCompile(`^(` +
	// pip
	`Collecting |Downloading |Using cached |Requirement already satisfied: |Processing /|Preparing metadata |` +
	`Building wheels? for |Created wheel for |Stored in directory: |Installing collected packages: |` +
	`Installing build dependencies|Getting requirements to build |Obtaining |Looking in (indexes|links): |` +
	`Attempting uninstall: |Found existing installation: |Uninstalling |Successfully (built|uninstalled) |` +
	`[━╸╺ ]+ [\d.]+/[\d.]+ [kMG]?B |` +
	// npm, pnpm, yarn
	`npm (http|timing|sill|verb|notice) |Progress: resolved \d+|Packages: [+-]\d+|[+-]{3,}$|` +
	`Downloading .* (done|\d+%)|Already up to date|Lockfile is up to date|` +
	`yarn (install|add|run) v\d|\[\d+/\d+\] \S|info (No lockfile found|Visit https?://|fsevents)|` +
	// go and cargo
	`go: (downloading|finding|extracting) |(Updating|Downloading|Downloaded|Locking|Adding|Blocking) ` +
	`)`)
