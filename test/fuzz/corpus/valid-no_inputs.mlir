func.func @no_inputs() -> () {
  func.return
}
