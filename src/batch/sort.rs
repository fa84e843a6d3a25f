//! Sorting rows by byte strings, for `dedup --sort canonical|surt`.
//!
//! A comparison sort of keys spends its time waiting for memory: each
//! compare reads two keys from wherever their rows put them, about twenty
//! times per key for a million keys. Here the sort is a most-significant-
//! digit radix sort whose digits are 8 bytes wide: one pass reads the next
//! 8 bytes of every key still in play, in turn and independently of each
//! other, into a small array that is then sorted by value; only the keys
//! that agree on all the bytes so far take part in the next pass. A run of
//! URIs shares a long prefix (`https://www.`), but few share more than a
//! few dozen bytes, so most keys leave after three or four passes.
//!
//! The order is exactly bytewise (a shorter string before the longer one
//! it begins), field by field: the second field decides between items whose
//! first fields are equal (a SURT, then its key).

use rayon::prelude::*;

use super::slots::prefetch;

/// How far ahead a pass asks for the bytes of a digit.
const AHEAD: usize = 8;

/// One item's digit: 8 bytes of a field from some offset (big-endian, so
/// that integers compare as the bytes do; zero past the end), how many of
/// the field's bytes remain from that offset (at most 9: "more than 8"),
/// the item, and the field's bytes (so that the next pass reads them
/// without going through the item, and can ask for them ahead).
#[derive(Clone, Copy)]
struct Digit<'a> {
    value: u64,
    left: u32,
    item: u32,
    bytes: &'a [u8],
}

impl Digit<'_> {
    fn order(&self) -> (u64, u32) {
        (self.value, self.left)
    }
}

/// The digit of `bytes` at `at`.
#[inline]
fn digit(bytes: &[u8], at: usize) -> (u64, u32) {
    let rest = bytes.get(at..).unwrap_or_default();
    let mut b = [0u8; 8];
    let n = rest.len().min(8);
    b[..n].copy_from_slice(&rest[..n]);
    (u64::from_be_bytes(b), rest.len().min(9) as u32)
}

/// `items` in the order of their fields (`field(item, f)` for `f` in
/// `0..fields`, compared in turn, each bytewise). Items whose fields are all
/// equal keep no particular order among themselves.
pub(super) fn sort_by_fields<T, F>(items: Vec<T>, fields: usize, field: F) -> Vec<T>
where
    T: Send + Sync,
    F: for<'t> Fn(&'t T, usize) -> &'t [u8] + Sync,
{
    if u32::try_from(items.len()).is_err() {
        // More rows than a digit can number (only with hundreds of GB of
        // memory): a comparison sort, in the same order.
        let mut items = items;
        items.par_sort_unstable_by(|a, b| by_fields(a, b, fields, &field));
        return items;
    }
    let mut digits: Vec<Digit> = (0..items.len() as u32)
        .into_par_iter()
        .map(|i| {
            let bytes = field(&items[i as usize], 0);
            let (value, left) = digit(bytes, 0);
            Digit {
                value,
                left,
                item: i,
                bytes,
            }
        })
        .collect();
    digits.par_sort_unstable_by_key(Digit::order);
    // Runs that agree on the first digit, each sorted on alone.
    digits
        .par_chunk_by_mut(|a, b| a.order() == b.order())
        .for_each(|run| next(run, &items, fields, &field, 0, 0));
    let order: Vec<u32> = digits.into_iter().map(|d| d.item).collect();
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|i| slots[i as usize].take().expect("each item once"))
        .collect()
}

/// The order of [`sort_by_fields`], by comparing.
fn by_fields<T, F>(a: &T, b: &T, fields: usize, field: &F) -> std::cmp::Ordering
where
    F: for<'t> Fn(&'t T, usize) -> &'t [u8],
{
    (0..fields)
        .map(|f| field(a, f).cmp(field(b, f)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// Sort `run`, whose items agree on field `f` up to byte `at` (on the digit
/// there too), by what follows. The largest part of a split is sorted on in
/// the same call (a loop), the others in calls of their own: each of those
/// holds at most half the items, so the calls nest at most log2(n) deep,
/// however long the keys.
fn next<'a, T, F>(
    mut run: &mut [Digit<'a>],
    items: &'a [T],
    fields: usize,
    field: &F,
    mut f: usize,
    mut at: usize,
) where
    F: for<'t> Fn(&'t T, usize) -> &'t [u8],
{
    while run.len() > 1 {
        // Equal digits with fewer than 9 bytes left: the fields are equal,
        // the next field decides (if there is one).
        if run[0].left <= 8 {
            if f + 1 == fields {
                return;
            }
            (f, at) = (f + 1, 0);
            for d in run.iter_mut() {
                d.bytes = field(&items[d.item as usize], f);
            }
        } else {
            at += 8;
        }
        for i in 0..run.len() {
            // The keys are anywhere in memory: ask a few ahead.
            if let Some(d) = run.get(i + AHEAD) {
                prefetch(d.bytes.as_ptr().wrapping_add(at));
            }
            let d = &mut run[i];
            (d.value, d.left) = digit(d.bytes, at);
        }
        run.sort_unstable_by_key(Digit::order);
        let mut big = 0..0;
        let mut i = 0;
        while i < run.len() {
            let j = i + run[i..]
                .iter()
                .position(|d| d.order() != run[i].order())
                .unwrap_or(run.len() - i);
            // Of this part and the largest so far, the smaller is done now.
            let small = if j - i > big.len() {
                std::mem::replace(&mut big, i..j)
            } else {
                i..j
            };
            if small.len() > 1 {
                next(&mut run[small], items, fields, field, f, at);
            }
            i = j;
        }
        run = &mut std::mem::take(&mut run)[big];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The fields of a pair.
    fn pair(p: &(Vec<u8>, Vec<u8>), f: usize) -> &[u8] {
        if f == 0 {
            &p.0
        } else {
            &p.1
        }
    }

    fn sorted(v: &[Vec<u8>]) -> Vec<Vec<u8>> {
        sort_by_fields(v.to_vec(), 1, |s, _| s)
    }

    #[test]
    fn bytewise_order_around_the_digit_edges() {
        let mut v: Vec<Vec<u8>> = [
            "",
            "a",
            "a\0",
            "\0",
            "https://",
            "https://a",
            "https://\0",
            "https://www.example.com/",
            "https://www.example.com/a",
            "https://www.example.com",
            "https://www.example.org/",
            "abcdefgh",
            "abcdefgh\0",
            "abcdefg",
            "abcdefgi",
            "\u{ff}",
            "abcdefghabcdefgh",
            "abcdefghabcdefg",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        let got = sorted(&v);
        v.sort();
        assert_eq!(got, v);
    }

    #[test]
    fn the_second_field_decides_between_equal_first_fields() {
        let v = vec![
            (b"com,a)/".to_vec(), b"https://a/".to_vec()),
            (b"com,a)/".to_vec(), b"http://a/".to_vec()),
            (b"com,a)/x".to_vec(), b"http://a/x".to_vec()),
            (b"com,a".to_vec(), b"z".to_vec()),
        ];
        let got = sort_by_fields(v.clone(), 2, |(a, b), f| if f == 0 { a } else { b });
        let mut want = v;
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn long_shared_prefixes_do_not_nest_calls() {
        // Each 8-byte step ends one key and keeps the rest together: one
        // call per step if the largest part recursed. 64 KiB of stack holds
        // a few hundred calls, not 3000.
        let keys: Vec<Vec<u8>> = (0..3000).rev().map(|k| vec![b'x'; 8 * k]).collect();
        let done = std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || {
                let mut run: Vec<Digit> = (0..keys.len() as u32)
                    .map(|item| {
                        let bytes = keys[item as usize].as_slice();
                        let (value, left) = digit(bytes, 0);
                        Digit {
                            value,
                            left,
                            item,
                            bytes,
                        }
                    })
                    .collect();
                run.sort_unstable_by_key(Digit::order);
                let first = run.iter().position(|d| d.left > 8).unwrap();
                next(
                    &mut run[first..],
                    &keys,
                    1,
                    &|s: &Vec<u8>, _| s.as_slice(),
                    0,
                    0,
                );
                let got: Vec<usize> = run.iter().map(|d| keys[d.item as usize].len()).collect();
                got.windows(2).all(|w| w[0] < w[1])
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(done);
    }

    proptest! {
        /// Against `sort`: strings over a small alphabet (long shared
        /// prefixes, NUL, high bytes), of lengths around the 8-byte digits.
        #[test]
        fn same_order_as_a_comparison_sort(
            v in proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(b'b'), Just(0xff)], 0..30),
                0..300,
            ),
        ) {
            let got = sorted(&v);
            let mut want = v;
            want.sort();
            prop_assert_eq!(got, want);
        }

        /// Two fields, against sorting the pairs.
        #[test]
        fn pairs_in_the_order_of_a_comparison_sort(
            v in proptest::collection::vec(
                (proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b')], 0..12),
                 proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a')], 0..12)),
                0..200,
            ),
        ) {
            let field = pair;
            let got = sort_by_fields(v.clone(), 2, field);
            // The comparison of the fallback for more than 2^32 items.
            let mut compared = v.clone();
            compared.sort_by(|a, b| by_fields(a, b, 2, &field));
            let mut want = v;
            want.sort();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(compared, want);
        }
    }
}
