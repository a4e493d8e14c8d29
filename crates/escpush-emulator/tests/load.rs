//! The emulator under hostile load: idle and half-sent connections, slow senders, a cap on
//! connections. Raw sockets on loopback, bounded loops.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use escpush_emulator::Emulator;

/// A GET of a zone's ESC status with the emulator's credentials, closing the connection.
fn status_request(emu: &Emulator) -> String {
    format!(
        "GET /client/v4/zones/z1/disable_esc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Connection: close\r\n\r\n",
        emu.api_token()
    )
}

/// Sends `request` on a fresh connection and reads the whole answer, within `limit`.
fn exchange(emu: &Emulator, request: &str, limit: Duration) -> String {
    let mut s = TcpStream::connect(emu.addr()).unwrap();
    s.set_read_timeout(Some(limit)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

/// One response of a keep-alive connection: its head, then its `Content-Length` of body.
fn read_one(s: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .map_or(0, |v| v.trim().parse().unwrap());
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).unwrap();
    head + &String::from_utf8_lossy(&body)
}

/// `n` connections that each send half a request line and stall.
fn half_sent(emu: &Emulator, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = TcpStream::connect(emu.addr()).unwrap();
            s.write_all(b"GET /client/v4/zo").unwrap();
            s
        })
        .collect()
}

#[test]
fn hundreds_of_half_sent_connections_do_not_stop_a_well_behaved_client() {
    let emu = Emulator::start().unwrap();
    let stalled = half_sent(&emu, 300);
    // Let the accept loop take them all in (and evict the oldest past the cap).
    std::thread::sleep(Duration::from_millis(300));
    let stats = emu.stats();
    assert!(
        stats.open_connections <= escpush_emulator::DEFAULT_MAX_CONNECTIONS,
        "{stats:?}"
    );
    for _ in 0..20 {
        let t = Instant::now();
        let answer = exchange(&emu, &status_request(&emu), Duration::from_secs(5));
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    }
    assert!(emu.stats().open_connections <= escpush_emulator::DEFAULT_MAX_CONNECTIONS);
    assert!(emu.stats().evicted >= 300 - escpush_emulator::DEFAULT_MAX_CONNECTIONS as u64);
    assert_eq!(emu.requests().len(), 20, "the stalled ones never made a request");
    drop(stalled);
}

#[test]
fn a_small_cap_evicts_the_idle_first() {
    let emu = Emulator::builder().max_connections(8).start().unwrap();
    let stalled = half_sent(&emu, 50);
    std::thread::sleep(Duration::from_millis(200));
    assert!(emu.stats().open_connections <= 8, "{:?}", emu.stats());
    let t = Instant::now();
    for _ in 0..10 {
        let answer = exchange(&emu, &status_request(&emu), Duration::from_secs(5));
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // The oldest stalled connections were closed by the emulator: reading them ends.
    let mut first = stalled.into_iter().next().unwrap();
    first.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut buf = [0u8; 16];
    assert!(matches!(first.read(&mut buf), Ok(0) | Err(_)));
}

#[test]
fn when_every_connection_is_busy_a_new_one_gets_503() {
    let emu = Emulator::builder().max_connections(2).start().unwrap();
    emu.fail_next(escpush_emulator::Fault::Delay(Duration::from_millis(800)), 2);
    let busy: Vec<_> = (0..2)
        .map(|_| {
            let request = status_request(&emu);
            let addr = emu.addr();
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(addr).unwrap();
                s.write_all(request.as_bytes()).unwrap();
                let mut out = String::new();
                let _ = s.read_to_string(&mut out);
                out
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let answer = exchange(&emu, &status_request(&emu), Duration::from_secs(2));
    assert!(
        answer.starts_with("HTTP/1.1 503") && answer.contains("Retry-After: 1"),
        "{answer}"
    );
    assert_eq!(emu.stats().refused, 1);
    for b in busy {
        assert!(b.join().unwrap().starts_with("HTTP/1.1 200"));
    }
}

#[test]
fn idle_and_slow_connections_are_closed_at_their_time_limits() {
    let emu = Emulator::builder()
        .idle_timeout(Duration::from_millis(200))
        .request_timeout(Duration::from_millis(400))
        .start()
        .unwrap();
    // Idle: nothing sent; closed after the idle timeout.
    let mut idle = TcpStream::connect(emu.addr()).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let t = Instant::now();
    let mut buf = Vec::new();
    let _ = idle.read_to_end(&mut buf);
    assert!(buf.is_empty(), "{}", String::from_utf8_lossy(&buf));
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    // Slow: a byte every 50 ms, so no single read waits long; the request as a whole is cut.
    let mut slow = TcpStream::connect(emu.addr()).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let t = Instant::now();
    let request = status_request(&emu);
    let mut cut = false;
    for b in request.as_bytes() {
        if slow.write_all(&[*b]).is_err() {
            cut = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        if t.elapsed() > Duration::from_secs(2) {
            break;
        }
    }
    let mut out = Vec::new();
    let _ = slow.read_to_end(&mut out);
    assert!(
        cut || out.is_empty() || !out.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    assert!(t.elapsed() < Duration::from_millis(2500), "{:?}", t.elapsed());
    assert!(emu.requests().is_empty(), "the slow request was never served");
    // A keep-alive connection that sends its requests promptly is served past the idle time.
    let mut ok = TcpStream::connect(emu.addr()).unwrap();
    ok.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let keep = status_request(&emu).replace("Connection: close\r\n", "");
    for _ in 0..3 {
        ok.write_all(keep.as_bytes()).unwrap();
        assert!(read_one(&mut ok).starts_with("HTTP/1.1 200"));
        std::thread::sleep(Duration::from_millis(100));
    }
    ok.shutdown(Shutdown::Both).unwrap();
}

#[test]
fn stop_ends_stalled_answers_at_once() {
    let emu = Emulator::start().unwrap();
    emu.fail_next(escpush_emulator::Fault::Stall(Duration::from_secs(3600)), 1);
    let mut s = TcpStream::connect(emu.addr()).unwrap();
    s.write_all(status_request(&emu).as_bytes()).unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    let t = Instant::now();
    emu.stop();
    s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}
