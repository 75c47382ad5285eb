// What the tests that run check-kernel as a user does share: where the
// sources and the binary are, two corpus kernels, reading a file, writing a
// temporary kernel, and running the CLI with its exit status and output.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cli_support {

inline const std::string src = PC_SOURCE_DIR;
inline const std::string bin = std::string(PC_BINARY_DIR) + "/check-kernel";
inline const std::string good = src + "/kernels/tlx_pingpong.bk";
inline const std::string bad = src + "/kernels/bugs/wrong_initial_parity.bk";

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A folder of its own under the system's temporary folder, for one test file.
inline std::filesystem::path temp_dir(const std::string& test) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("phasecheck_" + test);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string temp_file(const std::string& test, const std::string& name, const std::string& content) {
  const std::string path = (temp_dir(test) / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

struct Run {
  int status = -1;
  std::string out, err;
};

// Runs check-kernel with `args` (shell words), stdout and stderr kept apart.
inline Run run(const std::string& test, const std::string& args) {
  const std::filesystem::path dir = temp_dir(test);
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  const int st = std::system((bin + " " + args + " >" + out + " 2>" + err).c_str());
  return Run{WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(out), slurp(err)};
}

}  // namespace cli_support
