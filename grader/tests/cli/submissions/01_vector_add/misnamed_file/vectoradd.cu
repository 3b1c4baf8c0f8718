// A submission whose file has the wrong name: it must be rejected with a clear message.
