//! Server replies (listCollections, listIndexes) and declared specs -> canonical specs, so that equal means equal.
