func.func @f(%: tensor<4xf32>) -> - ? < > @ ^ { }
