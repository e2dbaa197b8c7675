class A:
  # c
    pass
class B:
    def f(self):
        return g("""
        """.format(w))
