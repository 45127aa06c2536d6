//! The registry: every collection root linked into a program, enumerable without listing them by hand.
