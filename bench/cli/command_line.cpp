// The command line through CLI11 (command_line.h).
#include "bench/cli/command_line.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace ablate::bench::cli {

namespace {

// `ablate --help` lists each command by its summary, the first line of its description.
class Formatter : public CLI::Formatter {
 public:
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    const std::string description = sub->get_description();
    CLI::detail::format_help(out, sub->get_display_name(), description.substr(0, description.find('\n')),
                             get_column_width());
    return out.str();
  }
};

// One command registered with CLI11: its subcommand and the option of each FlagSpec.
struct Registered {
  const Command* command = nullptr;
  CLI::App* app = nullptr;
  std::vector<std::pair<const run::FlagSpec*, CLI::Option*>> options;
};

CLI::Option* add_option(CLI::App& app, const run::FlagSpec& f) {
  if (f.positional) return app.add_option(f.name)->type_name(f.metavar)->description(f.help);
  if (f.metavar.empty()) return app.add_flag("--" + f.name)->description(f.help)->disable_flag_override();
  return app.add_option("--" + f.name)
      ->type_name(f.metavar)
      ->description(f.help)
      ->multi_option_policy(f.repeatable ? CLI::MultiOptionPolicy::TakeAll : CLI::MultiOptionPolicy::TakeLast);
}

std::unique_ptr<CLI::App> make_app(const std::vector<Command>& commands, std::vector<Registered>& registered) {
  auto app = std::make_unique<CLI::App>(
      "ablate: one engine that re-creates how TensorFlow 1.x, Caffe, Torch7 and Theano train a network", "ablate");
  app->formatter(std::make_shared<Formatter>());
  // Exactly one command; once it is given, a value spelled like a command (--out report) stays a value.
  app->require_subcommand(1);
  app->footer("ablate COMMAND --help describes each command's options.\n");
  for (const Command& c : commands) {
    Registered r;
    r.command = &c;
    r.app = app->add_subcommand(c.name, c.summary + "\n\n" + c.description + "\n");
    r.app->footer("");
    for (const run::FlagSpec& f : c.options) r.options.emplace_back(&f, add_option(*r.app, f));
    registered.push_back(std::move(r));
  }
  return app;
}

run::Flags collect(const Registered& r) {
  run::Flags flags;
  for (const auto& [spec, option] : r.options) {
    if (option->count() == 0) continue;
    if (spec->metavar.empty() && !spec->positional) {
      flags.set(spec->name, "true");
      continue;
    }
    const std::vector<std::string>& given = option->results();  // CLI11 gives none for an empty value
    if (given.empty()) flags.set(spec->name, "");
    for (const std::string& value : given) {
      if (spec->repeatable) flags.add(spec->name, value);
      else flags.set(spec->name, value);  // the last one given
    }
  }
  return flags;
}

// CLI11's messages in the project's words: the option, what was wrong, what it expects.
//   unknown:        "unknown option --bacth for 'ablate run'"
//   missing value:  "--batch needs a value (N)"
//   switch valued:  "--quiet is a switch and takes no value"
std::string parse_error(const CLI::ParseError& e, const Registered* chosen) {
  const std::string what = e.what();
  const std::string command = chosen ? "'ablate " + chosen->command->name + "'" : "'ablate'";
  std::string message = what;
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const auto colon = what.find(": ");
    const std::string extras = colon == std::string::npos ? what : what.substr(colon + 2);
    message = (extras.rfind('-', 0) == 0 ? "unknown option " : "unexpected argument ") + extras + " for " + command;
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    const std::string name = what.substr(0, what.find_first_of(": "));
    const std::string option = name.rfind("--", 0) == 0 ? name : "--" + name;
    if (what.find("flag override") != std::string::npos) {
      message = option + " is a switch and takes no value";
    } else if (what.find("missing") != std::string::npos) {
      std::string metavar = "a value";
      if (chosen)
        for (const auto& [spec, unused] : chosen->options)
          if ("--" + spec->name == option && !spec->metavar.empty()) metavar = "a value (" + spec->metavar + ")";
      message = option + " needs " + metavar;
    }
  }
  if (chosen) message += " (see ablate " + chosen->command->name + " --help)";
  return message;
}

const Registered* chosen(const std::vector<Registered>& registered) {
  for (const Registered& r : registered)
    if (r.app->parsed()) return &r;
  return nullptr;
}

}  // namespace

int run_command_line(int argc, char** argv, const std::vector<Command>& commands) {
  std::vector<Registered> registered;
  const std::unique_ptr<CLI::App> app = make_app(commands, registered);
  if (argc < 2) {
    std::fputs(app->help().c_str(), stderr);
    return 1;
  }
  const std::string first = argv[1];
  bool known = first.rfind('-', 0) == 0;  // --help, or an option CLI11 names
  for (const Command& c : commands) known = known || c.name == first;
  if (!known) {
    std::fprintf(stderr, "error: unknown command '%s'\n\n%s", first.c_str(), app->help().c_str());
    return 1;
  }
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app->help().c_str(), stdout);  // the chosen command's, or the list of commands
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s\n", parse_error(e, chosen(registered)).c_str());
    return 2;
  }
  const Registered* r = chosen(registered);
  try {
    return r->command->main(collect(*r));
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

run::Flags parse_options(const Command& command, const std::vector<std::string>& words) {
  const std::vector<Command> one = {command};
  std::vector<Registered> registered;
  const std::unique_ptr<CLI::App> app = make_app(one, registered);
  std::vector<std::string> args = {"ablate", command.name};
  args.insert(args.end(), words.begin(), words.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  try {
    app->parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    throw std::invalid_argument(parse_error(e, &registered.front()));
  }
  return collect(registered.front());
}

}  // namespace ablate::bench::cli
