//! The output's columns: which fields each CSV row has, in which order,
//! and the header line that names them.

use crate::batch::RunError;

/// A column of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The key (in the form asked for; SURT with [`Config::show_surt`](super::Config::show_surt)).
    Canonical,
    /// How many units share the key.
    Count,
    /// The input the key was first seen in, as named (`-` for stdin).
    FirstFile,
    /// The 1-based physical line of that first occurrence.
    FirstLine,
    /// That line (or record, or CSV field) as written, without its line
    /// terminator.
    Example,
    /// The key written as it is, under this header: a key that is already
    /// one or more CSV fields (the `links` job's `source,target`). Not in
    /// [`Field::ALL`] nor parsed by [`Columns::parse`].
    Raw(&'static str),
}

impl Field {
    /// Every column, in the default order.
    pub const ALL: [Field; 5] = [
        Field::Canonical,
        Field::Count,
        Field::FirstFile,
        Field::FirstLine,
        Field::Example,
    ];

    /// The column's name in the header.
    pub fn name(self) -> &'static str {
        match self {
            Field::Canonical => "canonical",
            Field::Count => "count",
            Field::FirstFile => "first_file",
            Field::FirstLine => "first_line",
            Field::Example => "example",
            Field::Raw(header) => header,
        }
    }
}

/// The columns of the output, in order: at least one, none twice.
///
/// Without [`Field::Example`] the table keeps no example, only keys: less
/// memory per distinct key (fewer spills) and fewer bytes copied. The rows
/// and their order do not depend on the columns.
///
/// ```
/// use irinorm::batch::{Columns, Field};
/// let c = Columns::parse("count,canonical").unwrap();
/// assert_eq!(c.fields(), [Field::Count, Field::Canonical]);
/// assert_eq!(c.header(), b"count,canonical\n");
/// assert!(Columns::parse("canonical,canonical").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns(Vec<Field>);

impl Default for Columns {
    /// `canonical,count,first_file,first_line,example`.
    fn default() -> Self {
        Columns(Field::ALL.to_vec())
    }
}

impl Columns {
    /// These columns in this order (an error if empty or one repeats).
    pub fn new(fields: &[Field]) -> Result<Columns, RunError> {
        if fields.is_empty() {
            return Err(RunError::msg("no output column given"));
        }
        for (i, f) in fields.iter().enumerate() {
            if fields[..i].contains(f) {
                return Err(RunError::msg(format!(
                    "output column {} given twice",
                    f.name()
                )));
            }
        }
        Ok(Columns(fields.to_vec()))
    }

    /// A comma-separated list of column names.
    pub fn parse(list: &str) -> Result<Columns, RunError> {
        let fields = list
            .split(',')
            .map(|name| {
                let name = name.trim();
                Field::ALL
                    .into_iter()
                    .find(|f| f.name() == name)
                    .ok_or_else(|| {
                        let known: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
                        RunError::msg(format!(
                            "no output column {name:?} (the columns: {})",
                            known.join(",")
                        ))
                    })
            })
            .collect::<Result<Vec<Field>, RunError>>()?;
        Columns::new(&fields)
    }

    /// The columns, in order.
    pub fn fields(&self) -> &[Field] {
        &self.0
    }

    /// Whether the rows need the first occurrence's line as written.
    pub fn has_example(&self) -> bool {
        self.0.contains(&Field::Example)
    }

    /// The CSV header line.
    pub fn header(&self) -> Vec<u8> {
        let names: Vec<&str> = self.0.iter().map(|f| f.name()).collect();
        format!("{}\n", names.join(",")).into_bytes()
    }
}
