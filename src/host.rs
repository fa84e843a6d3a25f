//! Hosts: IPv4address, IPv6 text forms (RFC 3986 §3.2.2, RFC 5952), and the
//! IDNA wrapper for reg-names of DNS schemes (3987bis §3.4, §5.3.3).
