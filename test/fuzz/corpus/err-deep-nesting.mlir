func.func @f(%x: tensor<f32>) {
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
fp8.kernel "gemm" () : () -> () {
^bb0:
}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}
