//! Character classes of 3987bis §2.2 as tables.
