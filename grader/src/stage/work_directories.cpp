#include "work_directories.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <regex>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace labgrade {
namespace {

namespace fs = std::filesystem;

// A hash of this machine's name.
std::string host_tag() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return fmt::format("{:08x}", static_cast<std::uint32_t>(std::hash<std::string>{}(name)));
}

}  // namespace

fs::path make_work_dir(const std::string& lab) {
  std::string pattern =
      (fs::temp_directory_path() / fmt::format("labgrade-{}-p{}-{}-XXXXXX", lab, static_cast<long>(::getpid()), host_tag()))
          .string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a work directory under " + pattern);
  return pattern;
}

void remove_stale_work_dirs() {
  static const std::regex kName("labgrade-.+-[bp]([0-9]{1,9})-([0-9a-f]{8})-[A-Za-z0-9]{6}");
  const std::string host = host_tag();
  std::error_code error;
  for (fs::directory_iterator it(fs::temp_directory_path(error), error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::smatch match;
    if (!std::regex_match(name, match, kName) || match[2] != host) continue;
    const auto pid = static_cast<pid_t>(std::stol(match[1]));
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::getuid()) continue;
    if (pid <= 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // still running
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

}  // namespace labgrade
