fn main() {
    for p in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&p).unwrap();
        let parsed = meshc::syntax::parse(&p.as_str().into(), &text);
        println!("== {p}: {} items", parsed.file.items.len());
        for d in &parsed.diagnostics {
            println!(
                "  {} {} @{:?} {:?}",
                d.code,
                d.message,
                &text[d.span.range()],
                d.help
            );
        }
    }
}
