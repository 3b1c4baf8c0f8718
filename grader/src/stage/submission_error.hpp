#pragma once
// How staging refuses a submission; thrown by staging.cpp and archive_extract.cpp alike.
#include <stdexcept>

namespace labgrade {

// The submission cannot be graded as given (a student file is missing, ambiguous, too large or
// not text, or an archive is unsafe).
class SubmissionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace labgrade
