//! Web mode's fast path (`irinorm::web::is_own_href`, URL Standard §4.4 and
//! §4.5) against the `url` crate: a reference the predicate accepts is its
//! own `href`, a URI as it stands, and its web-mode key is the ladder's key
//! of the reference at every rung. A reference that
//! `irinorm::web::rewritten_href` rewrites gets the `url` crate's `href`.
#![no_main]
use std::borrow::Cow;

use irinorm::web::{is_own_href, rewritten_href, Href, WebParser};
use irinorm::{Level, Normalizer, Options, Repairs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    if let Some(h) = irinorm::parse(&s).ok().and_then(|r| rewritten_href(&r)) {
        let href = url::Url::parse(&s).map(String::from);
        assert_eq!(
            href.as_deref(),
            Ok(&*h),
            "{s:?}: rewritten, but not its href"
        );
    }
    if !is_own_href(&s) {
        return;
    }
    let href = url::Url::parse(&s).map(String::from);
    assert_eq!(href.as_deref(), Ok(&*s), "fast path, but not its own href");
    assert!(matches!(
        Href::from_href(s.to_string()).to_uri_ref(),
        Cow::Borrowed(_)
    ));
    let web = WebParser::new();
    for level in Level::ALL {
        let n = Normalizer::new(Options {
            level,
            ..Options::default()
        });
        let string = level == Level::String;
        let fast = web.key(&s, string, &mut Repairs::default(), |t| n.key(t));
        let full = if string {
            Ok(Cow::Borrowed(&*s))
        } else {
            n.key(&s)
        };
        match (fast, full) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{s:?} at {level:?}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{s:?} at {level:?}: fast {a:?}, full {b:?}"),
        }
    }
});
