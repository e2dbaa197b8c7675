"""The learned value predictor: neural (tokenizer and LibTorch model), training/ (collect,
dataset, train) and the shipped model files (neural.pt2, frequency.json.gz)."""
