//! Tests of the digest learner, with the rules it writes and applies.
