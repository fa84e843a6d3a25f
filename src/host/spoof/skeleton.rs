//! Top-domain look-alikes (3987bis §10; UTS #39 §4 confusable skeletons):
//! a host whose skeleton is that of a popular domain it is not, such as
//! `gооgle.com` with Cyrillic `о`, stays ASCII.
//!
//! Two skeletons are compared per name, as Chromium's spoof checker does:
//! the UTS #39 skeleton of the lowercase name, and that of the name with
//! its combining marks removed and a few stroked letters unstroked (`ł`,
//! `ø`, `đ`, dotless `ı`/`ȷ`), so `tést.net` imitates `test.net`; a
//! supplement of look-alikes the Unicode list lacks is applied to both.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// A list of top domains with their skeletons.
#[derive(Debug, Default)]
pub struct TopDomains {
    domains: HashSet<String>,
    /// Skeleton → the first domain (in list order) that has it.
    skeletons: HashMap<String, String>,
}

const BUNDLED: &str = include_str!("top_domains.txt");

impl TopDomains {
    /// Read a list: one domain per line, `#` starts a comment (the format
    /// of Chromium's `domains.list`). A-labels are read as Unicode.
    pub fn parse(text: &str) -> TopDomains {
        let mut t = TopDomains::default();
        for line in text.lines() {
            let d = line.split('#').next().unwrap_or("").trim();
            if d.is_empty() {
                continue;
            }
            let d = idna::domain_to_unicode(&d.to_lowercase()).0;
            let d = d.trim_end_matches('.').to_owned();
            for s in skeletons(&d) {
                t.skeletons.entry(s).or_insert_with(|| d.clone());
            }
            t.domains.insert(d);
        }
        t
    }

    /// The bundled list: the 500 domains of the Moz Top 500 (see the header
    /// of `top_domains.txt`).
    pub fn bundled() -> &'static TopDomains {
        static T: OnceLock<TopDomains> = OnceLock::new();
        T.get_or_init(|| TopDomains::parse(BUNDLED))
    }

    pub fn len(&self) -> usize {
        self.domains.len()
    }

    pub fn is_empty(&self) -> bool {
        self.domains.is_empty()
    }

    /// The top domain `host` (Unicode) imitates, if any: the first suffix
    /// of two or more labels that has a non-ASCII character and the
    /// skeleton of a listed domain it is not. A host under a listed domain
    /// (`subdómain.test.net`) imitates nothing.
    pub fn similar(&self, host: &str) -> Option<&str> {
        let host = host.trim_end_matches('.').to_lowercase();
        let dots: Vec<usize> = host.match_indices('.').map(|(i, _)| i).collect();
        // Suffixes from the shortest (two labels) to the whole host.
        for k in (0..dots.len()).rev() {
            let start = if k == 0 { 0 } else { dots[k - 1] + 1 };
            let suffix = &host[start..];
            if self.domains.contains(suffix) {
                return None;
            }
            if suffix.is_ascii() {
                continue;
            }
            for s in skeletons(suffix) {
                if let Some(d) = self.skeletons.get(&s) {
                    if d != suffix {
                        return Some(d);
                    }
                }
            }
        }
        None
    }
}

/// Look-alikes the Unicode confusables list lacks, as Chromium's skeleton
/// generator supplements it (`skeleton_generator.cc`): letters and digits
/// of other scripts that pass for ASCII in common fonts.
pub(crate) fn supplement(c: char) -> Option<&'static str> {
    Some(match c {
        'æ' | 'ӕ' => "ae",
        'œ' => "ce",
        'þ' | 'ϼ' | 'ҏ' => "p",
        'ħ' | 'н' | 'ћ' | 'ң' | 'ҥ' | 'ӈ' | 'ӊ' | 'ԋ' | 'ԧ' | 'ԩ' => "h",
        'ĸ' | 'κ' | 'к' | 'қ' | 'ҝ' | 'ҟ' | 'ҡ' | 'ӄ' | 'ԟ' => "k",
        'ŋ' | 'п' | 'ԥ' | 'ก' | 'ח' => "n",
        'ŧ' | 'т' | 'ҭ' | 'ԏ' | '七' | '丅' | '丆' | '丁' => "t",
        'ƅ' | 'ь' | 'ҍ' | 'в' => "b",
        'ω' | 'ш' | 'щ' | 'ฟ' | 'ຟ' | 'ṃ' | 'ա' => "w",
        'м' | 'ӎ' => "m",
        'є' | 'ҽ' | 'ҿ' | 'ၔ' => "e",
        'ґ' => "r",
        'ғ' | 'ӻ' => "f",
        'ҫ' | 'င' => "c",
        'ұ' | '丫' => "y",
        'χ' | 'ҳ' | 'ӽ' | 'ӿ' | '乂' => "x",
        'ԃ' | 'ძ' => "d",
        'ԍ' | 'ဌ' => "g",
        'ട' | 'ร' | 'ຣ' | 'ຮ' => "s",
        '၂' => "j",
        '०' | '০' | '੦' | '૦' | 'ଠ' | '୦' | '೦' => "o",
        '৭' | '੧' | '૧' => "q",
        'บ' | 'ບ' => "u",
        'θ' => "0",
        '२' | '২' | '੨' | '૨' | '೩' | '೭' | 'շ' => "2",
        'з' | 'ҙ' | 'ӡ' | 'उ' | 'ও' | 'ਤ' | '੩' | '૩' | '౩' | 'ဒ' | 'ვ' | 'პ' | 'ੜ' | 'კ' => {
            "3"
        }
        '੫' | '丩' | 'ㄐ' => "4",
        'ճ' => "6",
        '৪' | '੪' | '୫' => "8",
        '૭' | '୨' | '౨' => "9",
        '‐' | '‑' | '‒' | '–' | '—' | '―' | '⸺' | '⸻' | 'ー' | '一' | '﹘' | '﹣' | '－' => {
            "-"
        }
        _ => return None,
    })
}

/// The skeletons of a name (see the module doc); `ł` also reads as `t`
/// (crbug.com/1250993).
pub(crate) fn skeletons(name: &str) -> Vec<String> {
    let lower = name.to_lowercase();
    let supplemented = |s: &str| -> String {
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            match supplement(c) {
                Some(r) => out.push_str(r),
                None => out.push(c),
            }
        }
        out
    };
    let plain: String = lower
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .map(|c| match c {
            'ł' | 'ƚ' => 'l',
            'ø' => 'o',
            'đ' => 'd',
            'ı' | 'ɨ' => 'i',
            'ȷ' => 'j',
            _ => c,
        })
        .collect();
    let mut out = vec![
        unicode_security::skeleton(&supplemented(&lower)).collect(),
        unicode_security::skeleton(&supplemented(&plain)).collect(),
    ];
    if lower.contains('ł') {
        let t = lower.replace('ł', "t");
        out.push(unicode_security::skeleton(&supplemented(&t)).collect());
    }
    out
}
