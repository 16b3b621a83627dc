#!/bin/sh
# Installs the tools the JS corpus runs (from the npm registry).
exec npm install --no-audit --no-fund --loglevel=error
