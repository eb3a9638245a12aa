//! Every argument of every subcommand has help text (`--help` leaves none without a word), and
//! the registry's `run` subcommands each say what they do.

fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>, count: &mut usize) {
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        *count += 1;
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        if help.trim().is_empty() {
            missing.push(format!("{path} {id}"));
        }
    }
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        if sub.get_about().is_none() {
            missing.push(format!("{path} {} (the subcommand)", sub.get_name()));
        }
        walk(sub, &format!("{path} {}", sub.get_name()), missing, count);
    }
}

#[test]
fn every_argument_has_help_text() {
    let cmd = tilekit_cli::command();
    let (mut missing, mut count) = (Vec::new(), 0);
    walk(&cmd, "tilekit", &mut missing, &mut count);
    assert!(missing.is_empty(), "without help text: {missing:#?}");
    assert!(count > 60, "only {count} arguments found");
}

#[test]
fn each_run_subcommand_says_what_its_family_registered() {
    // clap's derived argument groups set a command's about from their own doc comments; each
    // `tilekit run` subcommand must keep its family's line (it once read "Arguments every `run`
    // subcommand has" for all of them).
    let cmd = tilekit_cli::command();
    let run = cmd.find_subcommand("run").expect("tilekit run");
    let mut seen = 0;
    for sub in run.get_subcommands() {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        assert!(
            !about.is_empty() && !about.contains("every `run` subcommand"),
            "tilekit run {}: {about:?}",
            sub.get_name()
        );
        assert!(
            sub.get_long_about().is_none(),
            "tilekit run {}",
            sub.get_name()
        );
        seen += 1;
    }
    // One per family at least (copy and carve come from the wide and carve families).
    assert!(
        seen >= tilekit::kernels::families().len(),
        "only {seen} run subcommands"
    );
}
