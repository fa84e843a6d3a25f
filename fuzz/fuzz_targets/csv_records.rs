//! The CSV/TSV record path as the CLI runs it: the csv crate (flexible,
//! no headers, `,` or TAB) → the engine's `record_key` (field checks,
//! decoding, base column) → the prepared key function. A key re-keys to
//! itself; counts add up.
#![no_main]
use irinorm::batch::{Prep, PrepConfig};
use irinorm::fuzzing::{record_key, Layout, Rec, RecordKey};
use irinorm::Level;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = irinorm_fuzz::Opts::split(data) else {
        return;
    };
    let Some((&sel, body)) = rest.split_first() else {
        return;
    };
    let level = Level::ALL[(sel & 3) as usize];
    let delimiter = if sel & 4 != 0 { b'\t' } else { b',' };
    let base_column = (sel & 8 != 0).then_some(1);
    let n = opts.normalizer(level, irinorm::Form::Uri);
    let prep = Prep::new(
        &PrepConfig {
            mode: opts.mode,
            split_spaces: sel & 16 != 0,
            ..PrepConfig::default()
        },
        None,
    )
    .expect("no base, so no error");
    let kf = irinorm::batch::key_fn(prep, |s: &str| n.key(s));
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(body);
    let layout = Layout::by_index(0, base_column, delimiter);
    let (mut lines, mut counted) = (0u64, 0u64);
    let mut rec = csv::ByteRecord::new();
    while let Ok(true) = rdr.read_byte_record(&mut rec) {
        lines += 1;
        let r = Rec {
            rec: rec.clone(),
            line: lines,
            unterminated: false,
        };
        match record_key(&r, &layout, 4096, None, &kf, true) {
            RecordKey::Blank | RecordKey::Reject(_) => counted += 1,
            RecordKey::Key { key, example } => {
                counted += 1;
                assert!(!example.is_empty() || base_column.is_some());
                if level > Level::String && sel & 16 == 0 {
                    let again = kf(&key, None).map(|k| k.into_owned());
                    assert_eq!(
                        again.as_deref(),
                        Ok(key.as_str()),
                        "{example:?} -> {key:?} ({opts:?}, {level:?})"
                    );
                }
            }
        }
    }
    assert_eq!(lines, counted);
});
