#pragma once
// The service's HTTP side (remote_submit/service_api.hpp lists the routes): who is asking (a
// token), what they may do (limits), and the queue. It never runs student code: a submission is
// checked to unpack safely, queued, and graded by the GradingWorker.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "serve/service_store.hpp"
#include "session/grading_session.hpp"

namespace httplib {
class Server;
}

namespace labgrade::serve {

struct ServiceLimits {
  std::size_t max_upload_bytes = 1 << 20;     // a request body
  std::size_t submissions_per_window = 20;    // per token, both modes together
  std::int64_t window_seconds = 3600;
  int request_timeout_seconds = 30;           // reading or writing one request
};

class ServiceHttp {
 public:
  using Queued = std::function<void()>;  // after each accepted submission (wakes the worker)
  ServiceHttp(const CoursePaths& paths, ServiceStore& store, const ServiceLimits& limits, Queued queued);
  ~ServiceHttp();
  ServiceHttp(const ServiceHttp&) = delete;
  ServiceHttp& operator=(const ServiceHttp&) = delete;

  // Binds (port 0: any free port) and returns the port; throws when it cannot.
  int bind(const std::string& host, int port);
  void listen();  // until stop()
  void stop();

 private:
  void add_routes();
  CoursePaths paths_;
  ServiceStore& store_;
  ServiceLimits limits_;
  Queued queued_;
  // Held from a submission's limit checks to its place in the queue: two uploads at once could
  // otherwise both pass a limit that admits one (graded_runs_max, the rate per token).
  std::mutex admission_;
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace labgrade::serve
