module {
func.func @f() {
  return
}
