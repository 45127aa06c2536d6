//! Declared vs live canonical specs -> `Vec<Change>` -> `Plan` of server commands.
