package main

import (
	_ "github.com/spf13/cobra"
	_ "modernc.org/sqlite"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/tiktoken-go/tokenizer"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "pgregory.net/rapid"
)

func main() {}
