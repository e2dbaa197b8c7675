n = int(input())
pts = [tuple(map(int, input().split())) for _ in range(n)]
(x1, y1), (x2, y2) = pts[0], pts[1]
print("vertical" if x1 == x2 else f"{(y2 - y1) / (x2 - x1):.4f}")
