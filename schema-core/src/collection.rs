//! `CollectionSpec`: a collection's validator, validation level and action, options, indexes and shard key.
