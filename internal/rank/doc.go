// Package rank is how recall orders what it found, whichever store it
// searched (the local records, the team's): each query word weighs its
// inverse document frequency (estimated by the caller over its own
// documents); a document earns a word's weight when it contains the word,
// or part of it when it holds the parts of an identifier or path the word
// is made of ("GenFish" in TestFailGenFishCompletionFile). A full path the
// document names earns a bonus a file of the same base name does not, and
// so does a test name, error code or symbol it reports exactly, and the
// query's words in its order. The sum over the query's total weight is the
// relevance; documents within one Band of it are near-equal, and the
// caller orders those by freshness, then recency.
package rank
