//! What a user expects of a command line beyond its commands: shell completions and man
//! pages generated from the same definitions as the parser, and the list of diagnostic
//! codes.

use super::output;
use meshc::diagnostics::Code;
use std::path::PathBuf;

/// The shells completions are written for.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Prints the completion script of `shell` on standard output.
pub fn completions<C: clap::CommandFactory>(shell: Shell) -> u8 {
    // `meshc explain <TAB>` offers every code. Only the scripts learn them as the
    // argument's possible values: the command line itself keeps taking any text, so an
    // unknown code is answered with the closest known one.
    let codes = Code::ALL
        .iter()
        .map(|c| clap::builder::PossibleValue::new(c.as_str()).help(c.title()));
    let mut cmd = C::command().mut_subcommand("explain", |explain| {
        explain.mut_arg("code", |arg| {
            arg.value_parser(clap::builder::PossibleValuesParser::new(codes))
        })
    });
    // Written whole into a buffer first: a closed pipe (`| head`) ends quietly.
    let mut out: Vec<u8> = Vec::new();
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(shell, &mut cmd, "meshc", &mut out);
    if shell == clap_complete::Shell::Fish {
        // clap's fish script completes no positional value: each code is offered after
        // `explain` by a line of its own, its title as the description.
        for code in Code::ALL {
            let title = code.title().replace('\\', "\\\\").replace('\'', "\\'");
            out.extend_from_slice(
                format!(
                    "complete -c meshc -n \"__fish_meshc_using_subcommand explain\" -f -a {} -d '{title}'\n",
                    code.as_str()
                )
                .as_bytes(),
            );
        }
    }
    use std::io::Write;
    let _ = std::io::stdout().write_all(&out);
    0
}

fn render(cmd: &clap::Command) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut bytes)
        .map_err(|e| format!("cannot render the man page: {e}"))?;
    Ok(bytes)
}

/// Prints meshc(1), or writes it and meshc-COMMAND(1) for every command into `out`.
pub fn man<C: clap::CommandFactory>(out: Option<PathBuf>) -> u8 {
    let cmd = C::command().name("meshc");
    let result = match out {
        None => render(&cmd).map(|bytes| {
            use std::io::Write;
            let _ = std::io::stdout().write_all(&bytes);
        }),
        Some(dir) => {
            let mut pages = Vec::new();
            let mut all = || -> Result<(), String> {
                pages.push(("meshc.1".to_string(), render(&cmd)?));
                for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                    let name = format!("meshc-{}", sub.get_name());
                    // clap names a command with a `&'static str`; the process ends soon.
                    let page = sub
                        .clone()
                        .name(&*Box::leak(name.clone().into_boxed_str()))
                        .bin_name(&*Box::leak(
                            format!("meshc {}", sub.get_name()).into_boxed_str(),
                        ))
                        .version(env!("CARGO_PKG_VERSION"));
                    pages.push((format!("{name}.1"), render(&page)?));
                }
                super::atomic::write_all(&dir, &pages)
            };
            all()
        }
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            output::say(&e);
            2
        }
    }
}

/// Prints every diagnostic code with its one-line meaning, one per line.
pub fn explain_list() -> u8 {
    for code in Code::ALL {
        output::stdout_line(&format!("{}  {}", code.as_str(), code.title()));
    }
    0
}
