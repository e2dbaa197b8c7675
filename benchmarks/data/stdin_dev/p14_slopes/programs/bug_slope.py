n = int(input())
pts = [tuple(map(int, input().split())) for _ in range(n)]
(x1, y1), (x2, y2) = pts[0], pts[1]
k = (y2 - y1) / (x2 - x1)
print(f"{k:.4f}")
