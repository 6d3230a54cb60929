set pagination off
set confirm off
set breakpoint pending on
set cuda break_on_launch none
break locals.cu:20
run
frame
info args
info locals
print k
print acc
print odd
print big
print table
print wide
print name
cuda thread (3,0,0)
print k
print table[k]
info locals
delete 1
break locals.cu:4
continue
cuda thread (3,0,0)
frame
info args
info locals
print s
print a[0]@16
delete
continue
