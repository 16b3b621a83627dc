#!/bin/sh
# Generates many small, correct translation units so the build has the
# ordinary noise of a real project around its one broken file.
mkdir -p gen
i=0
while [ $i -lt 150 ]; do
  printf 'int gen_%d(int x) { return x + %d; }\n' $i $i > gen/g$i.c
  i=$((i + 1))
done
