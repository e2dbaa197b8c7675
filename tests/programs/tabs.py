def f():
	if True:
		return "tabs"
print(f())
