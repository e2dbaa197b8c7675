s = input().strip()
st = []
for ch in s:
    if ch == '(':
        st.append(ch)
    else:
        st.pop()
print("YES" if not st else "NO")
