x = 1
# caf‘
