//! Redis glob-style pattern matching (`stringmatchlen`), for KEYS, SCAN MATCH and CONFIG GET.
