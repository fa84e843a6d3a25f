use super::skeleton::skeletons;
use super::*;

#[test]
fn skeletons_of_lookalikes_meet() {
    assert_eq!(skeletons("კ9.com")[0], skeletons("39.com")[0]);
    assert_eq!(skeletons("tést.net")[1], skeletons("test.net")[1]);
}

#[test]
fn profiles_parse_by_name() {
    for p in IdnDisplay::ALL {
        assert_eq!(p.name().parse::<IdnDisplay>(), Ok(p));
    }
    assert!("loose".parse::<IdnDisplay>().is_err());
}

#[test]
fn verdicts_name_their_reason() {
    let high = DisplayPolicy::new(IdnDisplay::High);
    assert_eq!(high.label_verdict("münchen", "de"), Ok(()));
    assert_eq!(
        high.label_verdict("аррӏе", "com"),
        Err(Reason::WholeScriptConfusable(Script::Cyrillic))
    );
    assert_eq!(high.label_verdict("аррӏе", "ru"), Ok(()));
    assert_eq!(
        high.label_verdict("pаypal", "com"),
        Err(Reason::MixedScript)
    );
    assert_eq!(high.label_verdict("1২3", "com"), Err(Reason::MixedNumbers));
    assert_eq!(
        high.host_verdict("gооgle.com"),
        Err(Reason::TopDomainLookalike("google.com".into()))
    );
    assert_eq!(high.host_verdict("google.com"), Ok(()));
    let moderate = DisplayPolicy::new(IdnDisplay::Moderate);
    assert_eq!(moderate.label_verdict("аррӏе", "com"), Ok(()));
    assert_eq!(moderate.host_verdict("gооgle.com"), Ok(()));
}

#[test]
fn bopomofo_yi_next_to_latin_is_blocked() {
    let high = DisplayPolicy::new(IdnDisplay::High);
    assert_eq!(
        high.label_verdict("googleㄧ", "com"),
        Err(Reason::DangerousPattern)
    );
    assert_eq!(high.label_verdict("ㄧ猫", "com"), Ok(()));
}
